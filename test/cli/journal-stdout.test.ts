import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtCli, cleanEnv, repoRoot } from '../../scripts/lib/repo.js';
import { packageVersion } from '../../src/config/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * `terminal-agent start` as the unit runs it: stdout is the journal (JOURNAL_STREAM names a
 * real file standing in for it). What a fleet's log pipeline reads there (docs/operations.md,
 * "Logs"): only prefixed JSON lines, each naming the version, and from the certificate on
 * the terminal's serial number, no key twice.
 */
const work = tempDir('journal-stdout-');
afterAll(() => work.cleanup());

async function startUnderJournal(): Promise<string[]> {
  const file = join(work.dir, 'stdout');
  const fd = openSync(file, 'w+');
  try {
    const st = fstatSync(fd, { bigint: true });
    const env = {
      ...cleanEnv(),
      TERMINAL_AGENT_SYSTEM_CONFIG: join(work.dir, 'none.json'),
      JOURNAL_STREAM: `${st.dev}:${st.ino}`,
    };
    const child = spawn(
      process.execPath,
      [builtCli(repoRoot()), '--data-dir', join(work.dir, 'data'), '--api-port', '0', 'start'],
      { cwd: repoRoot(), env, stdio: ['ignore', fd, 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const reached = (): boolean => readFileSync(file, 'utf8').includes('"msg":"platform reachable"');
    await untilTrue('the agent to reach the platform or exit', () => reached() || child.exitCode !== null, {
      timeoutMs: 20_000,
      everyMs: 50,
    }).catch(() => {});
    if (!reached())
      throw new Error(`the agent did not reach the platform:\n${readFileSync(file, 'utf8').slice(-2000)}`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } finally {
    closeSync(fd);
  }
}

describe('start under systemd, stdout the journal', () => {
  it('writes only prefixed JSON log lines, each with the version, the serial number once the certificate is read, and no key twice', async () => {
    const lines = await startUnderJournal();
    expect(lines.length).toBeGreaterThan(5);
    const records = lines.map((line) => {
      const m = /^<([0-7])>(\{.*\})$/.exec(line);
      expect(m, `not a journal JSON line: ${line}`).not.toBeNull();
      for (const key of ['level', 'time', 'version', 'serialNumber', 'msg'])
        expect(line.split(`"${key}":`).length - 1, `"${key}" twice in ${line}`).toBeLessThanOrEqual(1);
      return JSON.parse(m?.[2] ?? '{}') as Record<string, unknown>;
    });
    expect(records.every((r) => r.version === packageVersion())).toBe(true);
    // The embedded demo platform (local environment only) starts before the terminal reads its certificate.
    const first = records.findIndex((r) => r.serialNumber !== undefined);
    expect(first).toBeGreaterThan(0);
    const terminal = records.slice(first).filter((r) => r.module !== 'demo-platform');
    expect(terminal.filter((r) => r.serialNumber !== 'TA-0001')).toEqual([]);
    expect(records.some((r) => typeof r.msg === 'string' && r.msg.startsWith('counter page: http://127.0.0.1:'))).toBe(
      true,
    );
  }, 40_000);
});
