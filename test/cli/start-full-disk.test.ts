import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payments/journal/index.js';
import { testCerts } from '../helpers/certs.js';
import { NO_SYSTEM_CONFIG } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `terminal-agent start` on a full disk (docs/operations.md, "Troubleshooting"): the journal
 * cannot be created, opened or written. The disk is made full for real by the kernel: the
 * child's file-size limit (RLIMIT_FSIZE, `prlimit --fsize=N -- node …`, as the chaos run's
 * disk-full moments do: scripts/chaos/front-door/disk-full.ts); every write past N bytes of
 * any file fails with EFBIG, which SQLite reports as an I/O error. The agent must say so in
 * one line naming the file and what to do, not SQLite's bare "disk I/O error", and must not
 * call a sound journal damaged; nothing is deleted.
 */
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(REPO, 'dist/src/cli/bin.js');

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function dataDir(): string {
  const t = tempDir('start-full-disk-');
  cleanups.push(t.cleanup);
  return join(t.dir, 'data');
}

/** The built CLI's `start` under a file-size limit of `bytes`; nothing listens at the platform's port (the journal comes first). */
function startWithLimit(dir: string, bytes: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  expect(existsSync(BIN), 'run `npm run build` (npm test builds first)').toBe(true);
  for (const f of [
    'src/payments/journal/journal.ts',
    'src/payments/journal/integrity.ts',
    'src/payments/journal/write-failure.ts',
  ]) {
    const js = join(REPO, 'dist', f.replace(/\.ts$/, '.js'));
    expect(
      statSync(js).mtimeMs >= statSync(join(REPO, f)).mtimeMs,
      `dist is older than ${f}: run \`npm run build\``,
    ).toBe(true);
  }
  const certs = testCerts();
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TERMINAL_AGENT_'))),
    TERMINAL_AGENT_SYSTEM_CONFIG: NO_SYSTEM_CONFIG,
    TERMINAL_AGENT_SIM__EMBEDDED: 'false',
    TERMINAL_AGENT_PLATFORM__BASE_URL: 'https://127.0.0.1:9',
    TERMINAL_AGENT_PLATFORM__AUTH_URL: 'https://127.0.0.1:9',
    TERMINAL_AGENT_PLATFORM__DEVICE_AUTH_URL: 'https://127.0.0.1:9',
    TERMINAL_AGENT_IDENTITY__CERT_FILE: certs.deviceCert,
    TERMINAL_AGENT_IDENTITY__KEY_FILE: certs.deviceKey,
    TERMINAL_AGENT_IDENTITY__CA_FILE: certs.caCert,
  };
  const child = spawn(
    'prlimit',
    [
      `--fsize=${bytes}`,
      '--',
      process.execPath,
      BIN,
      '--log-level',
      'silent',
      '--data-dir',
      dir,
      '--api-port',
      '0',
      'start',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((r) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      r({ code, stdout, stderr });
    }),
  );
}

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function expectNoRoomLine(stderr: string, dir: string): void {
  const file = join(dir, 'journal.sqlite');
  expect(stderr).toMatch(/^terminal-agent: .*\n$/);
  expect(stderr.trimEnd()).not.toContain('\n');
  expect(stderr).toContain(
    `cannot open the journal ${file}: the disk is full or its files cannot be written (SQLITE_IOERR`,
  );
  expect(stderr).toContain(`free space in ${dir}`);
  expect(stderr).toContain('nothing was deleted or changed');
  expect(stderr).toContain('[JOURNAL_UNWRITABLE]');
  expect(stderr).not.toMatch(/damaged|move the journal/);
}

describe('start on a full disk', () => {
  it('a new data directory whose journal cannot be written: exit 1 with one line naming the file and "free space", not a bare "disk I/O error"', async () => {
    for (const bytes of [0, 20_000]) {
      const dir = dataDir();
      const r = await startWithLimit(dir, bytes);
      expect(r.code, r.stderr).toBe(1);
      expectNoRoomLine(r.stderr, dir);
    }
  }, 60_000);

  it('a sound journal that cannot be opened on a full disk is not called damaged, and is left byte for byte', async () => {
    const dir = dataDir();
    const journal = new Journal({ dataDir: dir });
    journal.insert({
      clientTransactionId: 'kept-1',
      kind: 'sale',
      amount: 1234,
      currency: 'EUR',
      state: 'approved',
      clientDateTime: '2026-01-01T10:00:00.000Z',
    });
    journal.close();
    const file = join(dir, 'journal.sqlite');
    const before = digest(file);
    const files = readdirSync(dir).sort();
    const r = await startWithLimit(dir, 0);
    expect(r.code, r.stderr).toBe(1);
    expectNoRoomLine(r.stderr, dir);
    expect(digest(file)).toBe(before);
    expect(
      readdirSync(dir)
        .filter((f) => !f.endsWith('-shm') && !f.endsWith('-wal'))
        .sort(),
    ).toEqual(files.filter((f) => !f.endsWith('-shm') && !f.endsWith('-wal')));
  }, 60_000);
});
