import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../helpers/cli.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});
function configFile(content: unknown): string {
  const t = tempDir('terminal-agent-cli-config-');
  cleanups.push(t.cleanup);
  const file = join(t.dir, 'agent.json');
  // 0600: a file holding auth.password must be (a looser mode is refused, tested below).
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return file;
}

function oneErrorLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

describe('terminal-agent config show', () => {
  it('prints the effective configuration with auth.password redacted', async () => {
    const secret = 'correct-horse-battery-staple';
    const file = configFile({ api: { port: 9001 }, auth: { mode: 'password', username: 'staff1' } });
    const r = await runCli(['--config', file, '--log-level', 'warn', 'config', 'show'], {
      TERMINAL_AGENT_AUTH__PASSWORD: secret,
      TERMINAL_AGENT_OFFLINE__MAX_COUNT: '42',
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(secret);
    const shown = JSON.parse(r.stdout) as {
      file: string;
      endpoints: { baseUrl: string };
      config: {
        auth: { password: string; username: string; mode: string };
        api: { port: number };
        offline: { maxCount: number };
        log: { level: string };
      };
    };
    expect(shown.file).toBe(file);
    expect(shown.config.auth.password).toBe('[redacted]');
    expect(shown.config.auth).toMatchObject({ mode: 'password', username: 'staff1' });
    expect(shown.config.api.port).toBe(9001); // file
    expect(shown.config.offline.maxCount).toBe(42); // environment
    expect(shown.config.log.level).toBe('warn'); // flag
    expect(shown.endpoints.baseUrl).toMatch(/^https?:\/\//);
  });

  it('redacts a password that comes from the config file too', async () => {
    const secret = 'file-held-secret-1234';
    const r = await runCli(['--config', configFile({ auth: { password: secret } }), 'config', 'show']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(secret);
    expect(r.stdout).toContain('[redacted]');
  });

  it('a bad value exits non-zero with one line naming the key', async () => {
    const r = await runCli(['--config', configFile({ api: { port: 'eighty' } }), 'config', 'show']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    const line = oneErrorLine(r.stderr);
    expect(line).toContain('api.port');
    expect(line).toContain('CONFIG_INVALID');
  });

  it('an unknown key exits non-zero with one line naming it', async () => {
    const r = await runCli(['--config', configFile({ offline: { maxCuont: 3 } }), 'config', 'show']);
    expect(r.code).not.toBe(0);
    expect(oneErrorLine(r.stderr)).toContain('offline.maxCuont');
  });

  it('a bad environment value names the key and the variable', async () => {
    const r = await runCli(['--config', configFile({}), 'config', 'show'], {
      TERMINAL_AGENT_PLATFORM__BASE_URL: 'not a url',
    });
    expect(r.code).not.toBe(0);
    const line = oneErrorLine(r.stderr);
    expect(line).toContain('platform.baseUrl');
    expect(line).toContain('TERMINAL_AGENT_PLATFORM__BASE_URL');
  });

  it('a missing --config file exits non-zero naming the file', async () => {
    const missing = join(configFile({}), '..', 'missing.json');
    const r = await runCli(['--config', missing, 'config', 'show']);
    expect(r.code).not.toBe(0);
    expect(oneErrorLine(r.stderr)).toContain('missing.json');
  });

  it('a bad secret value is never echoed in the error line', async () => {
    const r = await runCli(['--config', configFile({ auth: { password: 12345678 } }), 'config', 'show']);
    expect(r.code).not.toBe(0);
    const line = oneErrorLine(r.stderr);
    expect(line).toContain('auth.password');
    expect(line).not.toContain('12345678');
  });
});
