import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, envName, configLeaves, redactConfig, resolveEndpoints } from '../../src/config/load.js';
import { tempDir } from '../helpers/temp-dir.js';
import { errorOf } from '../helpers/agent-error.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function withFile(content: unknown): { dir: string; file: string } {
  const t = tempDir();
  cleanup = t.cleanup;
  const file = join(t.dir, 'agent.json');
  // 0600, as a file holding auth.password must be (test/config/transport-and-secrets.test.ts).
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return { dir: t.dir, file };
}

describe('configuration precedence', () => {
  it('uses defaults when no file exists and none is named', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const { config, file } = loadConfig({ cwd: t.dir, env: {} });
    expect(file).toBeUndefined();
    expect(config.environment).toBe('local');
    expect(config.offline.maxCount).toBe(500);
    expect(config.dataDir).toBe(join(t.dir, 'data'));
  });

  it('applies defaults < file < environment < flags', () => {
    const { dir, file } = withFile({ api: { port: 9000 }, offline: { maxCount: 10, maxAgeHours: 12 }, log: { level: 'warn' } });
    const env = { TERMINAL_AGENT_OFFLINE__MAX_COUNT: '20', TERMINAL_AGENT_LOG__LEVEL: 'debug' };
    const { config } = loadConfig({ cwd: dir, file, env, flags: { log: { level: 'error' } } });
    expect(config.api.port).toBe(9000); // file
    expect(config.offline.maxAgeHours).toBe(12); // file
    expect(config.offline.maxCount).toBe(20); // env beats file
    expect(config.log.level).toBe('error'); // flag beats env
    expect(config.offline.warnBeforeHours).toBe(2); // default
  });

  it('parses typed environment values: booleans, JSON records, strings that look like numbers', () => {
    const { dir, file } = withFile({});
    const env = {
      TERMINAL_AGENT_DEVICES__SIMULATE: 'false',
      TERMINAL_AGENT_OFFLINE__FLOOR_LIMITS: '{"JPY": 5000}',
      TERMINAL_AGENT_AUTH__MERCHANT_ID: '1001',
    };
    const { config } = loadConfig({ cwd: dir, file, env });
    expect(config.devices.simulate).toBe(false);
    expect(config.offline.floorLimits).toEqual({ JPY: 5000 });
    expect(config.auth.merchantId).toBe('1001');
  });

  it('derives one environment name per key', () => {
    const names = configLeaves().map((l) => envName(l.path));
    expect(names).toContain('TERMINAL_AGENT_DEVICES__READER__BAUD_RATE');
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('configuration errors name the key and what is wrong', () => {
  it('unknown key in the file', () => {
    const { dir, file } = withFile({ offline: { maxCnt: 3 } });
    const err = errorOf(() => loadConfig({ cwd: dir, file, env: {} }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toBe(`config: offline.maxCnt: unknown key (from ${file})`);
  });

  it('bad URL', () => {
    const { dir, file } = withFile({ platform: { baseUrl: 'not a url' } });
    const err = errorOf(() => loadConfig({ cwd: dir, file, env: {} }));
    expect(err.message).toMatch(/^config: platform\.baseUrl: is not a URL/);
  });

  it('missing file named with --config', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const err = errorOf(() => loadConfig({ cwd: t.dir, file: 'absent.json', env: {} }));
    expect(err.code).toBe('CONFIG_FILE_MISSING');
    expect(err.message).toContain('absent.json does not exist');
  });

  it('file that is not JSON', () => {
    const { dir, file } = withFile('{ nope');
    expect(errorOf(() => loadConfig({ cwd: dir, file, env: {} })).message).toMatch(/is not valid JSON/);
  });

  it('wrong type from the environment names the variable', () => {
    const { dir, file } = withFile({});
    const err = errorOf(() => loadConfig({ cwd: dir, file, env: { TERMINAL_AGENT_API__PORT: 'eighty' } }));
    expect(err.message).toMatch(/^config: api\.port: .*\(from TERMINAL_AGENT_API__PORT\)$/);
  });

  it('unknown environment variable', () => {
    const { dir, file } = withFile({});
    const err = errorOf(() => loadConfig({ cwd: dir, file, env: { TERMINAL_AGENT_NOPE: '1' } }));
    expect(err.message).toContain('TERMINAL_AGENT_NOPE');
  });

  it('bad JSON in a record variable', () => {
    const { dir, file } = withFile({});
    const err = errorOf(() => loadConfig({ cwd: dir, file, env: { TERMINAL_AGENT_OFFLINE__MAX_TOTAL: '{EUR:1}' } }));
    expect(err.message).toBe('config: offline.maxTotal: TERMINAL_AGENT_OFFLINE__MAX_TOTAL is not valid JSON');
  });

  it('a non-loopback local API host is refused', () => {
    const { dir, file } = withFile({ api: { host: '0.0.0.0' } });
    expect(errorOf(() => loadConfig({ cwd: dir, file, env: {} })).message).toMatch(/^config: api\.host:/);
  });

  it('negative offline limit', () => {
    const { dir, file } = withFile({ offline: { floorLimits: { EUR: -1 } } });
    expect(errorOf(() => loadConfig({ cwd: dir, file, env: {} })).message).toMatch(/^config: offline\.floorLimits\.EUR:/);
  });
});

describe('config show', () => {
  it('redacts the staff password', () => {
    const { dir, file } = withFile({ auth: { mode: 'password', username: 'staff1', password: 'hunter2' } });
    const { config } = loadConfig({ cwd: dir, file, env: {} });
    const shown = JSON.stringify(redactConfig(config));
    expect(shown).not.toContain('hunter2');
    expect(shown).toContain('staff1');
  });

  it('resolves the environment hosts, explicit URLs first', () => {
    const { dir, file } = withFile({ environment: 'eu', platform: { baseUrl: 'https://api.example.test/' } });
    const { config } = loadConfig({ cwd: dir, file, env: {} });
    const endpoints = resolveEndpoints(config, join(process.cwd(), 'config/environments.json'));
    expect(endpoints.baseUrl).toBe('https://api.example.test');
    expect(endpoints.deviceAuthUrl).toMatch(/:9021$/);
  });
});

describe('shipped configuration files', () => {
  it('config/default.json and config/terminal.example.json are valid', () => {
    for (const file of ['config/default.json', 'config/terminal.example.json']) {
      const { config } = loadConfig({ cwd: process.cwd(), file, env: {} });
      expect(config.api.host).toBe('127.0.0.1');
    }
    const { config } = loadConfig({ cwd: process.cwd(), file: 'config/terminal.example.json', env: {} });
    expect(config.devices.simulate).toBe(false);
    expect(resolveEndpoints(config).deviceAuthUrl).toMatch(/:9021$/);
  });
});
