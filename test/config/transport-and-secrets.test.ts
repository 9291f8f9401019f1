import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { resolveSecureEndpoints } from '../../src/config/secure-endpoints.js';
import { errorOf } from '../helpers/agent-error.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Transport and secrets in the configuration (docs/operations.md, "Configuration keys that
 * matter in production"): every platform URL is https:// without credentials in it, whether
 * it comes from platform.* or from the environments file; a configuration file holding
 * auth.password is open to its owner only. Each refusal is one line naming the key or file.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function file(content: unknown, mode = 0o600): { dir: string; file: string } {
  const t = tempDir('config-transport-');
  cleanups.push(t.cleanup);
  const f = join(t.dir, 'agent.json');
  writeFileSync(f, JSON.stringify(content));
  chmodSync(f, mode);
  return { dir: t.dir, file: f };
}

describe('platform URLs', () => {
  for (const key of ['baseUrl', 'authUrl', 'deviceAuthUrl'] as const) {
    it(`platform.${key} over plain http:// is refused, naming the key`, () => {
      const { dir, file: f } = file({ platform: { [key]: 'http://api.example.test' } });
      const err = errorOf(() => loadConfig({ cwd: dir, file: f, env: {} }));
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.message).toMatch(new RegExp(`^config: platform\\.${key}: must be an https:// URL, not http://`));
      expect(err.message).not.toContain('\n');
    });
  }

  it('credentials in a platform URL are refused without echoing them', () => {
    const { dir, file: f } = file({ platform: { authUrl: 'https://staff1:hunter2@security.example.test' } });
    const err = errorOf(() => loadConfig({ cwd: dir, file: f, env: {} }));
    expect(err.message).toMatch(/^config: platform\.authUrl: must not carry credentials/);
    expect(err.message).not.toContain('hunter2');
  });

  it('an http:// URL from the environment variables is refused too', () => {
    const t = tempDir('config-transport-');
    cleanups.push(t.cleanup);
    const err = errorOf(() =>
      loadConfig({ cwd: t.dir, env: { TERMINAL_AGENT_PLATFORM__BASE_URL: 'http://api.example.test' } }),
    );
    expect(err.message).toMatch(
      /^config: platform\.baseUrl: must be an https:\/\/ URL, not http:\/\/ .*\(from TERMINAL_AGENT_PLATFORM__BASE_URL\)/,
    );
  });

  it('https:// URLs are accepted', () => {
    const { dir, file: f } = file({
      platform: {
        baseUrl: 'https://api.example.test',
        authUrl: 'https://sec.example.test',
        deviceAuthUrl: 'https://dev.example.test:9021',
      },
    });
    expect(loadConfig({ cwd: dir, file: f, env: {} }).config.platform.baseUrl).toBe('https://api.example.test');
  });

  it('an environments file entry over http:// or with credentials is refused at start, naming the file and entry', () => {
    const envs = (over: Record<string, string>): string => {
      const t = tempDir('config-environments-');
      cleanups.push(t.cleanup);
      const f = join(t.dir, 'environments.json');
      const eu = {
        baseUrl: 'https://api.eu.example.test',
        authUrl: 'https://sec.eu.example.test',
        deviceAuthUrl: 'https://dev.eu.example.test:9021',
        ...over,
      };
      writeFileSync(f, JSON.stringify({ local: eu, demo: eu, na: eu, in: eu, eu }));
      return f;
    };
    const { dir, file: f } = file({ environment: 'eu' });
    const { config } = loadConfig({ cwd: dir, file: f, env: {} });
    const plain = envs({ deviceAuthUrl: 'http://dev.eu.example.test:9021' });
    expect(errorOf(() => resolveSecureEndpoints(config, plain)).message).toBe(
      `config: ${plain}: eu.deviceAuthUrl: must be an https:// URL, not http:// (plain HTTP would let anyone on the path read bearer tokens and card data)`,
    );
    const creds = envs({ baseUrl: 'https://u:p@api.eu.example.test' });
    expect(errorOf(() => resolveSecureEndpoints(config, creds)).message).toMatch(
      new RegExp(`^config: .*environments.json: eu\\.baseUrl: must not carry credentials`),
    );
    expect(resolveSecureEndpoints(config, envs({})).baseUrl).toBe('https://api.eu.example.test');
    // The shipped environments file passes (local: its other entries are placeholders, refused for that reason).
    const local = loadConfig({ cwd: dir, file: file({ environment: 'local' }).file, env: {} }).config;
    expect(resolveSecureEndpoints(local).baseUrl).toMatch(/^https:\/\//);
  });
});

describe('a configuration file holding a secret', () => {
  it('auth.password in a file readable by group or others (0644): refused, naming the file and the chmod', () => {
    const { dir, file: f } = file({ auth: { mode: 'password', username: 'staff1', password: 'hunter2' } }, 0o644);
    const err = errorOf(() => loadConfig({ cwd: dir, file: f, env: {} }));
    expect(err.code).toBe('CONFIG_PERMISSIONS');
    expect(err.message).toBe(
      `config: ${f} holds auth.password and is open to group or others (mode 0644): run \`chmod 600 ${f}\``,
    );
    expect(err.message).not.toContain('hunter2');
    for (const mode of [0o640, 0o604, 0o660]) {
      chmodSync(f, mode);
      expect(errorOf(() => loadConfig({ cwd: dir, file: f, env: {} })).code).toBe('CONFIG_PERMISSIONS');
    }
  });

  it('is accepted at 0600 and 0400; a 0644 file without a secret, or with the secret in the environment, is accepted', () => {
    const { dir, file: f } = file({ auth: { mode: 'password', username: 'staff1', password: 'hunter2' } }, 0o600);
    expect(loadConfig({ cwd: dir, file: f, env: {} }).config.auth.password).toBe('hunter2');
    chmodSync(f, 0o400);
    expect(loadConfig({ cwd: dir, file: f, env: {} }).config.auth.password).toBe('hunter2');
    const open = file({ auth: { mode: 'password', username: 'staff1' } }, 0o644);
    expect(
      loadConfig({ cwd: open.dir, file: open.file, env: { TERMINAL_AGENT_AUTH__PASSWORD: 'from-env' } }).config.auth
        .password,
    ).toBe('from-env');
  });
});
