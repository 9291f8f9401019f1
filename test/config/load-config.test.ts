import { describe, it, expect, afterEach } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadConfig,
  envName,
  configLeaves,
  redactConfig,
  resolveEndpoints,
  environmentHosts,
  resolvePlatformTimeZone,
} from '../../src/config/load.js';
import { packageDir } from '../../src/config/bundled.js';
import { tempDir } from '../helpers/temp-dir.js';
import { errorOf } from '../helpers/agent-error.js';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

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
  it("without --config reads the package's config/default.json, never the working directory's", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    // A decoy in the working directory must not be read.
    mkdirSync(join(t.dir, 'config'));
    writeFileSync(join(t.dir, 'config', 'default.json'), JSON.stringify({ offline: { maxCount: 7 } }));
    const { config, file } = loadConfig({ cwd: t.dir, env: {} });
    expect(file).toBe(join(REPO, 'config', 'default.json'));
    expect(config.environment).toBe('local');
    expect(config.offline.maxCount).toBe(500);
    // Relative paths the user gives (here the default data directory) stay relative to the working directory.
    expect(config.dataDir).toBe(join(t.dir, 'data'));
    // The demo seed is the package's unless someone names another.
    expect(config.sim.seedFile).toBe(join(REPO, 'config', 'demo-seed.json'));
    expect(loadConfig({ cwd: t.dir, env: { TERMINAL_AGENT_SIM__SEED_FILE: 'my-seed.json' } }).config.sim.seedFile).toBe(
      join(t.dir, 'my-seed.json'),
    );
  });

  it('applies defaults < file < environment < flags', () => {
    const { dir, file } = withFile({
      api: { port: 9000 },
      offline: { maxCount: 10, maxAgeHours: 12 },
      log: { level: 'warn' },
    });
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

  it('file that is not JSON: the message quotes none of the file (a password may sit next to the mistake)', () => {
    // V8 quotes the text around an unexpected token: `Unexpected token 'h', "{"auth": {"password": hunter2}}" is not valid JSON`.
    const { dir, file } = withFile('{"auth": {"password": hunter2}}');
    const message = errorOf(() => loadConfig({ cwd: dir, file, env: {} })).message;
    expect(message).toBe(`config: ${file} is not valid JSON (Unexpected token 'h')`);
    expect(message).not.toContain('hunter2');
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
    expect(errorOf(() => loadConfig({ cwd: dir, file, env: {} })).message).toMatch(
      /^config: offline\.floorLimits\.EUR:/,
    );
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

  it("resolves the environment hosts, explicit URLs first, from the package's environments.json", () => {
    const { dir, file } = withFile({
      environment: 'eu',
      platform: {
        baseUrl: 'https://api.example.test/',
        authUrl: 'https://security.example.test',
        deviceAuthUrl: 'https://device.example.test:9021/',
      },
    });
    const { config } = loadConfig({ cwd: dir, file, env: {} });
    const endpoints = resolveEndpoints(config);
    expect(endpoints).toEqual({
      baseUrl: 'https://api.example.test',
      authUrl: 'https://security.example.test',
      deviceAuthUrl: 'https://device.example.test:9021',
    });
    expect(packageDir()).toBe(REPO);
  });
});

describe("the platform's time zone", () => {
  it("has no default: platform.timeZone first, then the embedded demo platform's own, then the environment's entry; none is refused naming the key", () => {
    const local = loadConfig({ cwd: REPO, env: {}, flags: {} }).config;
    expect(local.platform.timeZone).toBeUndefined();
    expect(resolvePlatformTimeZone(local)).toBe('UTC');
    expect(resolvePlatformTimeZone(local, undefined, 'America/Los_Angeles')).toBe('America/Los_Angeles');
    const named = loadConfig({
      cwd: REPO,
      env: { TERMINAL_AGENT_PLATFORM__TIME_ZONE: 'Asia/Singapore' },
      flags: {},
    }).config;
    expect(resolvePlatformTimeZone(named, undefined, 'America/Los_Angeles')).toBe('Asia/Singapore');
    for (const environment of ['demo', 'na', 'in', 'eu']) {
      const { config } = loadConfig({ cwd: REPO, env: {}, flags: { environment } });
      const err = errorOf(() => resolvePlatformTimeZone(config));
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.details).toMatchObject({ key: 'platform.timeZone', environment });
      expect(err.message).toBe(
        `config: environment ${environment} does not name the platform's time zone: set platform.timeZone to the IANA zone its server times are written in (e.g. Asia/Singapore; ask the platform operator), or add "timeZone" to its entry in ${join(REPO, 'config', 'environments.json')}`,
      );
    }
  });

  it('an environment entry may name it; a name the runtime does not know is refused, naming the file', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const envFile = join(t.dir, 'environments.json');
    const hosts = {
      baseUrl: 'https://a.example.test',
      authUrl: 'https://b.example.test',
      deviceAuthUrl: 'https://c.example.test:9021',
    };
    writeFileSync(envFile, JSON.stringify({ eu: { ...hosts, timeZone: 'Europe/Berlin' } }));
    const { config } = loadConfig({ cwd: REPO, env: {}, flags: { environment: 'eu' } });
    expect(resolvePlatformTimeZone(config, envFile)).toBe('Europe/Berlin');
    writeFileSync(envFile, JSON.stringify({ eu: { ...hosts, timeZone: 'Mars/Olympus' } }));
    expect(errorOf(() => resolvePlatformTimeZone(config, envFile)).message).toMatch(
      /^config: .*environments\.json: eu\.timeZone: expected an IANA time zone name/,
    );
  });
});

describe('environments with placeholder hosts', () => {
  it('every non-local environment in config/environments.json is marked as a placeholder, under .invalid', () => {
    for (const environment of ['demo', 'na', 'in', 'eu']) {
      const { config } = loadConfig({ cwd: REPO, env: {}, flags: { environment } });
      const hosts = environmentHosts(config);
      expect(hosts.placeholderKeys).toEqual(['platform.baseUrl', 'platform.authUrl', 'platform.deviceAuthUrl']);
      for (const url of Object.values(hosts.endpoints)) expect(new URL(url).hostname).toMatch(/\.invalid$/);
    }
    const { config } = loadConfig({ cwd: REPO, env: {} });
    expect(environmentHosts(config).placeholderKeys).toEqual([]);
  });

  it('is refused with one line naming the keys still to set', () => {
    const { dir, file } = withFile({ environment: 'eu', platform: { baseUrl: 'https://api.example.test' } });
    const { config } = loadConfig({ cwd: dir, file, env: {} });
    const err = errorOf(() => resolveEndpoints(config));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toBe(
      `config: environment eu has no real platform hosts: set platform.authUrl, platform.deviceAuthUrl (or put the real hosts in ${join(REPO, 'config', 'environments.json')})`,
    );
    expect(err.message).not.toContain('\n');
  });

  it('a host set by hand under .invalid is a placeholder too; an environment file without the mark is taken as real', () => {
    const { dir, file } = withFile({
      environment: 'na',
      platform: {
        baseUrl: 'https://a.example.test',
        authUrl: 'https://b.example.test',
        deviceAuthUrl: 'https://device.example.invalid:9021',
      },
    });
    const { config } = loadConfig({ cwd: dir, file, env: {} });
    expect(errorOf(() => resolveEndpoints(config)).message).toMatch(
      /^config: environment na has no real platform hosts: set platform\.deviceAuthUrl \(/,
    );
    const envFile = join(dir, 'environments.json');
    const hosts = {
      baseUrl: 'https://api.na.example.test',
      authUrl: 'https://sec.na.example.test',
      deviceAuthUrl: 'https://dev.na.example.test:9021',
    };
    writeFileSync(envFile, JSON.stringify({ local: hosts, na: hosts }));
    const plain = loadConfig({ cwd: dir, env: {}, flags: { environment: 'na' } }).config;
    expect(resolveEndpoints(plain, envFile)).toEqual(hosts);
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
    // The example names environment eu, whose shipped hosts are placeholders: it must be completed first.
    expect(errorOf(() => resolveEndpoints(config)).message).toMatch(
      /^config: environment eu has no real platform hosts: set platform\.baseUrl, platform\.authUrl, platform\.deviceAuthUrl/,
    );
  });
});
