import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AgentError, ErrorCodes, type TimeSource } from '../../core/index.js';
import { LAN_DIR } from './server-certificate.js';
import type { ApiRegister } from '../shared/index.js';

/** A paired cash register as people and programs see it (the wire type): never its key. */
export type RegisterView = ApiRegister;

const recordSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  keyHash: z.string().regex(/^[0-9a-f]{64}$/),
  pairedAt: z.string(),
  pairedBy: z.string(),
  revokedAt: z.string().optional(),
});
type RegisterRecord = z.infer<typeof recordSchema>;
const fileSchema = z.object({ registers: z.array(recordSchema) });

const KEY_PREFIX = 'tareg_';

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function registersFile(dataDir: string): string {
  return join(dataDir, LAN_DIR, 'registers.json');
}

/**
 * Paired registers and the hashes of their API keys (docs/registers.md, "Pairing"): the
 * key itself is shown once, to the register that paired, and never stored. A key is 32
 * random bytes, so one SHA-256 is enough to keep it from being read back out of the file;
 * a slow hash would only slow every request. The file is 0600 and replaced atomically.
 */
export class RegisterStore {
  private records: RegisterRecord[];
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly file: string,
    private readonly clock: TimeSource,
  ) {
    this.records = RegisterStore.read(file);
  }

  private static read(file: string): RegisterRecord[] {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `cannot read the paired registers ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        { cause: err },
      );
    }
    try {
      return fileSchema.parse(JSON.parse(text)).registers;
    } catch (err) {
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `the paired registers file ${file} is damaged: move it away and pair the registers again`,
        { cause: err },
      );
    }
  }

  private write(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ registers: this.records }, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  private view(r: RegisterRecord): RegisterView {
    const lastSeenAt = this.seen.get(r.id);
    return {
      id: r.id,
      name: r.name,
      pairedAt: r.pairedAt,
      pairedBy: r.pairedBy,
      ...(r.revokedAt !== undefined ? { revokedAt: r.revokedAt } : {}),
      ...(lastSeenAt !== undefined ? { lastSeenAt } : {}),
    };
  }

  list(): RegisterView[] {
    return this.records.map((r) => this.view(r));
  }

  /** Records a new register; the answer's `apiKey` is the only copy of its key. */
  add(name: string, pairedBy: string): { register: RegisterView; apiKey: string } {
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const record: RegisterRecord = {
      id,
      name,
      keyHash: hashSecret(secret).toString('hex'),
      pairedAt: new Date(this.clock.wall()).toISOString(),
      pairedBy,
    };
    this.records = [...this.records, record];
    this.write();
    return { register: this.view(record), apiKey: `${KEY_PREFIX}${id}.${secret}` };
  }

  revoke(id: string): RegisterView {
    const record = this.records.find((r) => r.id === id);
    if (record === undefined)
      throw new AgentError(
        ErrorCodes.API_NOT_FOUND,
        `no paired register ${id} (terminal-agent registers list shows them)`,
      );
    if (record.revokedAt === undefined) {
      const revoked = { ...record, revokedAt: new Date(this.clock.wall()).toISOString() };
      this.records = this.records.map((r) => (r.id === id ? revoked : r));
      this.write();
      return this.view(revoked);
    }
    return this.view(record);
  }

  /** The register a presented key belongs to, or undefined for a wrong, malformed or revoked key. */
  authenticate(presented: string): RegisterView | undefined {
    if (!presented.startsWith(KEY_PREFIX)) return undefined;
    const dot = presented.indexOf('.', KEY_PREFIX.length);
    if (dot < 0) return undefined;
    const id = presented.slice(KEY_PREFIX.length, dot);
    const record = this.records.find((r) => r.id === id);
    if (record === undefined || record.revokedAt !== undefined) return undefined;
    if (!timingSafeEqual(hashSecret(presented.slice(dot + 1)), Buffer.from(record.keyHash, 'hex'))) return undefined;
    this.seen.set(id, new Date(this.clock.wall()).toISOString());
    return this.view(record);
  }
}
