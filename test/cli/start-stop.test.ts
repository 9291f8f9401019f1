import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli, cleanEnv, repoRoot } from '../../scripts/lib/repo.js';
import { writeProductionConfig } from '../../scripts/lib/production-profile.js';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * `terminal-agent start` (production profile), sent SIGTERM the moment its counter page line
 * arrives: answers how it ended and whether it logged its graceful stop.
 */
function stopAtCounterPage(
  config: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stopping: boolean }> {
  const repoDir = repoRoot();
  const child = spawn(process.execPath, [builtCli(repoDir), '--config', config, 'start'], {
    cwd: repoDir,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let sent = false;
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    if (!sent && out.includes('Counter page:')) {
      sent = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, stopping: out.includes('"msg":"stopping"') }));
  });
}

describe('terminal-agent start and SIGTERM', () => {
  // The race is short (the line written, then the handlers installed): several starts make
  // a regression show nearly every run.
  it('stops gracefully when SIGTERM comes right after the counter page line', async () => {
    const certs = testCerts();
    const tmp = tempDir('start-stop-');
    cleanups.push(tmp.cleanup);
    const config = writeProductionConfig(tmp.dir, certs);
    for (let i = 0; i < 6; i++) {
      const end = await stopAtCounterPage(config);
      expect(end, `start ${i + 1}`).toEqual({ code: 0, signal: null, stopping: true });
    }
  }, 120_000);
});
