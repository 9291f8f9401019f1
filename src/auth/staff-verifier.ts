import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentError, ErrorCodes, type Logger, type TimeSource } from '../core/index.js';
import type { StaffIdentity } from './staff-claims.js';

export const STAFF_VERIFIER_FILE = 'staff-verifiers.json';

/**
 * scrypt parameters of the local verifier (docs/operations.md, "Staff accounts"): N = 2^15,
 * r = 8, p = 1 take 32 MiB and about 0.1 s per check on a terminal's CPU, so guessing a
 * password from a stolen file costs that much per guess; 32-byte key, 16-byte random salt.
 */
export const SCRYPT_PARAMS = { N: 32_768, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;

const entrySchema = z.strictObject({
  salt: z.string(),
  hash: z.string(),
  N: z.number().int().positive(),
  r: z.number().int().positive(),
  p: z.number().int().positive(),
  /** Wall-clock milliseconds of the online sign-in that wrote the entry. */
  savedAt: z.number(),
  name: z.string(),
  permissions: z.array(z.string()),
  locale: z.string().optional(),
  zoneinfo: z.string().optional(),
  dateTimeFormat: z.string().optional(),
});
const fileSchema = z.strictObject({ version: z.literal(1), staff: z.record(z.string(), entrySchema) });
type Entry = z.infer<typeof entrySchema>;
type VerifierFile = z.infer<typeof fileSchema>;

function scrypt(
  password: string,
  salt: Buffer,
  e: { N: number; r: number; p: number },
  keyLength: number,
): Promise<Buffer> {
  // maxmem above 128 * N * r (32 MiB) so the default 32 MiB cap does not refuse it.
  const options: ScryptOptions = { N: e.N, r: e.r, p: e.p, maxmem: 256 * e.N * e.r };
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export interface StaffVerifierOptions {
  dataDir: string;
  /** auth.offlineSignInDays: how long after an online sign-in the verifier answers; 0 = never. */
  days: number;
  clock: TimeSource;
  log: Logger;
}

/**
 * The local verifier for sign-in while the platform is unreachable (docs/counter-page.md,
 * "Local API and counter page"): per clerk a salted scrypt hash of the password of their last
 * online sign-in, with their name and permissions, in `<dataDir>/staff-verifiers.json`
 * (0600). Refreshed on every online sign-in; an entry older than `days` is refused and
 * removed. Never holds a password or a token.
 */
export class StaffVerifier {
  private readonly file: string;

  constructor(private readonly opts: StaffVerifierOptions) {
    this.file = join(opts.dataDir, STAFF_VERIFIER_FILE);
  }

  /** After a successful online sign-in: remember the clerk's password hash (a new salt each time). */
  async remember(staff: StaffIdentity, password: string): Promise<void> {
    if (this.opts.days <= 0) return;
    const salt = randomBytes(SCRYPT_PARAMS.saltLength);
    const { N, r, p } = SCRYPT_PARAMS;
    const hash = await scrypt(password, salt, { N, r, p }, SCRYPT_PARAMS.keyLength);
    const file = this.read();
    file.staff[staff.username] = {
      salt: salt.toString('base64'),
      hash: hash.toString('base64'),
      N,
      r,
      p,
      savedAt: this.opts.clock.wall(),
      name: staff.name,
      permissions: staff.permissions,
      ...(staff.locale !== undefined ? { locale: staff.locale } : {}),
      ...(staff.zoneinfo !== undefined ? { zoneinfo: staff.zoneinfo } : {}),
      ...(staff.dateTimeFormat !== undefined ? { dateTimeFormat: staff.dateTimeFormat } : {}),
    };
    this.prune(file);
    this.write(file);
  }

  /** The platform refused the clerk (a changed password, a closed account): no offline sign-in with the old one. */
  forget(username: string): void {
    const file = this.read();
    if (file.staff[username] === undefined) return;
    delete file.staff[username];
    this.write(file);
  }

  /** The clerk's identity when the password matches a current entry; otherwise API_SIGN_IN_FAILED. */
  async verify(username: string, password: string): Promise<StaffIdentity> {
    const file = this.read();
    const pruned = this.prune(file);
    if (pruned) this.write(file);
    const entry: Entry | undefined = this.opts.days > 0 ? file.staff[username] : undefined;
    if (entry === undefined) {
      throw new AgentError(
        ErrorCodes.API_SIGN_IN_FAILED,
        `the platform cannot be reached and ${username.slice(0, 60)} has not signed in on this terminal within ${this.opts.days} days: sign in when it is back`,
        // Counted by the throttle like a wrong password: otherwise usernames could be tried for free while offline.
        { details: { credentials: true } },
      );
    }
    const expected = Buffer.from(entry.hash, 'base64');
    const got = await scrypt(password, Buffer.from(entry.salt, 'base64'), entry, expected.length);
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new AgentError(ErrorCodes.API_SIGN_IN_FAILED, 'wrong username or password', {
        details: { credentials: true },
      });
    }
    return {
      username,
      name: entry.name,
      permissions: entry.permissions,
      ...(entry.locale !== undefined ? { locale: entry.locale } : {}),
      ...(entry.zoneinfo !== undefined ? { zoneinfo: entry.zoneinfo } : {}),
      ...(entry.dateTimeFormat !== undefined ? { dateTimeFormat: entry.dateTimeFormat } : {}),
    };
  }

  private prune(file: VerifierFile): boolean {
    const oldest = this.opts.clock.wall() - this.opts.days * 86_400_000;
    let changed = false;
    for (const [user, e] of Object.entries(file.staff)) {
      // An entry from the future (the clock was set back) is treated as expired too.
      if (e.savedAt < oldest || e.savedAt > this.opts.clock.wall() + 60_000) {
        delete file.staff[user];
        changed = true;
      }
    }
    return changed;
  }

  private read(): VerifierFile {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, staff: {} };
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `cannot read ${this.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        { cause: err },
      );
    }
    try {
      return fileSchema.parse(JSON.parse(text));
    } catch {
      // A damaged file only costs offline sign-in until the next online one rewrites it.
      this.opts.log.warn(
        { file: this.file },
        'staff verifier file is unreadable; offline sign-in needs an online sign-in first',
      );
      return { version: 1, staff: {} };
    }
  }

  private write(file: VerifierFile): void {
    mkdirSync(this.opts.dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(file), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }
}
