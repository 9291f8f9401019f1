import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { loadConfig, type LoadedConfig } from '../../src/config/index.js';
import { logLevelControl } from '../../src/core/index.js';
import { changedKeyPaths, configReloader, RELOADABLE_KEYS } from '../../src/cli/reload.js';

/**
 * The configuration reload on SIGHUP (src/cli/reload.ts; docs/operations.md, "Reloading the
 * configuration"): which keys changed, what is applied, what is refused, and that reloads never
 * overlap. test/cli/sighup.test.ts sends the real signal to the built CLI.
 */
describe('changedKeyPaths', () => {
  it('names nothing for equal values, nested or not', () => {
    expect(changedKeyPaths({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toEqual([]);
    expect(changedKeyPaths('x', 'x')).toEqual([]);
  });

  it('names the dotted path of a changed leaf in nested objects, sorted', () => {
    expect(
      changedKeyPaths(
        { log: { level: 'info' }, api: { port: 1, host: 'h' } },
        { log: { level: 'debug' }, api: { port: 2, host: 'h' } },
      ),
    ).toEqual(['api.port', 'log.level']);
  });

  it('compares an array whole and names the array', () => {
    expect(changedKeyPaths({ d: { ids: [1, 2] } }, { d: { ids: [2, 1] } })).toEqual(['d.ids']);
    expect(changedKeyPaths({ d: { ids: [{ a: 1 }] } }, { d: { ids: [{ a: 2 }] } })).toEqual(['d.ids']);
    expect(changedKeyPaths({ d: { ids: [1] } }, { d: { ids: [1, 1] } })).toEqual(['d.ids']);
  });

  it('names added and removed keys, a whole object added at its path', () => {
    expect(changedKeyPaths({ limits: { EUR: 100 } }, { limits: { EUR: 100, USD: 50 } })).toEqual(['limits.USD']);
    expect(changedKeyPaths({ limits: { EUR: 100, USD: 50 } }, { limits: { EUR: 100 } })).toEqual(['limits.USD']);
    expect(changedKeyPaths({ a: 1 }, { a: 1, reader: { path: '/dev/x' } })).toEqual(['reader']);
    // A key set to undefined is the same as a key left out (optional config keys).
    expect(changedKeyPaths({ a: 1, p: undefined }, { a: 1 })).toEqual([]);
  });

  it('names a value that changed kind (object to scalar, array to object)', () => {
    expect(changedKeyPaths({ a: { b: 1 } }, { a: 2 })).toEqual(['a']);
    expect(changedKeyPaths({ a: [1] }, { a: { 0: 1 } })).toEqual(['a']);
    expect(changedKeyPaths(1, 2)).toEqual(['(root)']);
  });
});

interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A root logger writing JSON lines into `lines`. */
function recordingLogger(level = 'info'): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

function config(edit: (c: LoadedConfig['config']) => void = () => {}): LoadedConfig {
  const loaded = loadConfig({ env: {}, flags: { environment: 'local' } });
  edit(loaded.config);
  return loaded;
}

describe('configReloader', () => {
  it('lists log.level as the one reloadable key', () => {
    expect(RELOADABLE_KEYS).toEqual(['log.level']);
  });

  it('sets the configured log level through the control and logs what it applied', async () => {
    const { log, lines } = recordingLogger();
    const control = logLevelControl(log);
    const reloader = configReloader({
      started: config(),
      load: () => Promise.resolve(config((c) => (c.log.level = 'debug'))),
      logLevel: control,
      log,
    });
    await reloader.reload();
    await flush();
    expect(control.get()).toBe('debug');
    expect(lines.map((l) => l.msg)).toEqual([
      'SIGHUP: reloading the configuration',
      'configuration reloaded: log.level debug (was info)',
    ]);
  });

  it('still logs what it applied when the level is turned down', async () => {
    const { log, lines } = recordingLogger();
    const reloader = configReloader({
      started: config(),
      load: () => Promise.resolve(config((c) => (c.log.level = 'error'))),
      logLevel: logLevelControl(log),
      log,
    });
    await reloader.reload();
    await flush();
    expect(log.level).toBe('error');
    expect(lines.map((l) => l.msg)).toContain('configuration reloaded: log.level error (was info)');
  });

  it('names the changed keys that need a restart in one warning, without their values', async () => {
    const { log, lines } = recordingLogger();
    const next = config((c) => {
      c.dataDir = '/srv/secret-data-dir';
      c.api.port = 48123;
      c.log.level = 'warn';
    });
    await configReloader({
      started: config(),
      load: () => Promise.resolve(next),
      logLevel: logLevelControl(log),
      log,
    }).reload();
    await flush();
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe(
      'configuration changed but not applied until a restart (systemctl restart terminal-agent): api.port, dataDir',
    );
    expect(warnings[0]?.keys).toEqual(['api.port', 'dataDir']);
    const all = JSON.stringify(lines);
    expect(all).not.toContain('secret-data-dir');
    expect(all).not.toContain('48123');
    // Still to restart on the next reload: the change was not applied.
    lines.length = 0;
    await configReloader({
      started: config(),
      load: () => Promise.resolve(next),
      logLevel: logLevelControl(log),
      log,
    }).reload();
    await flush();
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
  });

  it('keeps the running configuration and logs one error when the configuration does not load', async () => {
    const { log, lines } = recordingLogger();
    const control = logLevelControl(log);
    const started = { ...config(), file: '/etc/terminal-agent/config.json' };
    const refuse = (): Promise<LoadedConfig> =>
      Promise.reject(Object.assign(new Error('config: log.level: Invalid option'), { code: 'CONFIG_INVALID' }));
    await configReloader({ started, load: refuse, logLevel: control, log }).reload();
    await flush();
    expect(control.get()).toBe('info');
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe(
      'configuration not reloaded, the agent keeps running on its current one: config: log.level: Invalid option (/etc/terminal-agent/config.json)',
    );
    expect(errors[0]?.code).toBe('CONFIG_INVALID');
  });

  it('never rejects: a failure while applying is logged and the next reload still runs', async () => {
    const { log, lines } = recordingLogger();
    let fail = true;
    const control = {
      get: () => 'info' as const,
      set: () => {
        if (fail) throw new Error('level control broken');
      },
    };
    const reloader = configReloader({
      started: config(),
      load: () => Promise.resolve(config()),
      logLevel: control,
      log,
    });
    await expect(reloader.reload()).resolves.toBeUndefined();
    await flush();
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      'configuration reload failed; the agent keeps running on its current configuration',
    ]);
    fail = false;
    await reloader.reload();
    await flush();
    expect(lines.at(-1)?.msg).toBe('configuration reloaded: log.level info (unchanged)');
  });

  it('runs one reload at a time: calls during one are coalesced into one more', async () => {
    const { log } = recordingLogger('silent');
    let running = 0;
    let most = 0;
    let loads = 0;
    const release: Array<() => void> = [];
    const load = async (): Promise<LoadedConfig> => {
      loads++;
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => release.push(r));
      running--;
      return config();
    };
    const reloader = configReloader({ started: config(), load, logLevel: logLevelControl(log), log });
    const first = reloader.reload();
    const more = [reloader.reload(), reloader.reload(), reloader.reload()];
    await flush();
    expect(loads).toBe(1);
    release.shift()?.();
    for (let i = 0; i < 5 && release.length === 0; i++) await flush();
    expect(loads).toBe(2);
    release.shift()?.();
    await Promise.all([first, ...more]);
    expect(loads).toBe(2);
    expect(most).toBe(1);
    // Idle again: the next call reloads.
    const after = reloader.reload();
    await flush();
    release.shift()?.();
    await after;
    expect(loads).toBe(3);
  });
});
