import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli, cleanEnv, repoRoot } from '../../scripts/lib/repo.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * The built CLI's `start` refused for its configuration, its stderr a real file standing in
 * for the journal's stream (JOURNAL_STREAM names its dev:ino when `journal` is set, as
 * systemd does for a unit): what it wrote there.
 */
function refusedStart(args: string[], journal: boolean): { status: number | null; stderr: string } {
  const t = tempDir('journal-priority-');
  cleanups.push(t.cleanup);
  const config = join(t.dir, 'config.json');
  writeFileSync(config, JSON.stringify({ environment: 'demo', api: { port: 'eight thousand' } }), { mode: 0o600 });
  const file = join(t.dir, 'stderr');
  const fd = openSync(file, 'w+');
  try {
    const st = fstatSync(fd, { bigint: true });
    const env = {
      ...cleanEnv(),
      TERMINAL_AGENT_SYSTEM_CONFIG: join(t.dir, 'none.json'),
      ...(journal ? { JOURNAL_STREAM: `${st.dev}:${st.ino}` } : {}),
    };
    const run = spawnSync(process.execPath, [builtCli(repoRoot()), '--config', config, ...args], {
      env,
      stdio: ['ignore', 'ignore', fd],
      timeout: 20_000,
    });
    return { status: run.status, stderr: readFileSync(file, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

describe('a refused start under systemd', () => {
  it('is filed at priority err (<3>) in the journal, so journalctl -p warning shows why the unit fails', () => {
    const plain = refusedStart(['start'], true);
    expect(plain.status).toBe(1);
    const lines = plain.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^<3>/);
    expect(plain.stderr).toMatch(/^<3>terminal-agent: .*api\.port/);

    const json = refusedStart(['start', '--json'], true);
    expect(json.status).toBe(1);
    expect(json.stderr).toMatch(/^<3>\{"error":\{"code":"CONFIG_INVALID"/);
  });

  it('writes no prefix where stderr is not the journal (a terminal, a pipe, a redirected child)', () => {
    const run = refusedStart(['start'], false);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^terminal-agent: .*api\.port/);
  });
});
