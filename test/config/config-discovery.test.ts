import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configLeaves, envName, loadConfig } from '../../src/config/load.js';
import { CONFIG_FILE_VARIABLE, SYSTEM_CONFIG_VARIABLE } from '../../src/config/index.js';
import { errorOf } from '../helpers/agent-error.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Which configuration file is read (docs/operations.md, "Which configuration file is read"):
 * --config, then TERMINAL_AGENT_CONFIG, then the installed terminal's system file when it
 * exists, then the package's demo default. The system file is a path in a temporary
 * directory here, never the machine's /etc.
 */
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DEMO_DEFAULT = join(REPO, 'config', 'default.json');

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function dir(): string {
  const t = tempDir('terminal-agent-discovery-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A configuration file whose offline.maxCount says which one was read. */
function marked(d: string, name: string, maxCount: number): string {
  const file = join(d, name);
  writeFileSync(file, JSON.stringify({ offline: { maxCount } }), { mode: 0o600 });
  return file;
}

describe('configuration file discovery', () => {
  it('--config beats TERMINAL_AGENT_CONFIG, which beats the system file, which beats the package default', () => {
    const d = dir();
    const flag = marked(d, 'flag.json', 1);
    const variable = marked(d, 'variable.json', 2);
    const system = marked(d, 'system.json', 3);
    const env = { [CONFIG_FILE_VARIABLE]: variable };

    const byFlag = loadConfig({ cwd: d, file: 'flag.json', env, systemFile: system });
    expect(byFlag).toMatchObject({
      file: flag,
      source: 'flag',
      reason: `given with --config (${CONFIG_FILE_VARIABLE} is set and not read)`,
    });
    expect(byFlag.config.offline.maxCount).toBe(1);

    const byVariable = loadConfig({ cwd: d, env, systemFile: system });
    expect(byVariable).toMatchObject({
      file: variable,
      source: 'variable',
      reason: `named by ${CONFIG_FILE_VARIABLE}`,
    });
    expect(byVariable.config.offline.maxCount).toBe(2);

    const bySystem = loadConfig({ cwd: d, env: {}, systemFile: system });
    expect(bySystem).toMatchObject({ file: system, source: 'system' });
    expect(bySystem.reason).toMatch(/installed terminal's file/);
    expect(bySystem.config.offline.maxCount).toBe(3);

    const byDefault = loadConfig({ cwd: d, env: {}, systemFile: join(d, 'absent', 'config.json') });
    expect(byDefault).toMatchObject({ file: DEMO_DEFAULT, source: 'default' });
    expect(byDefault.reason).toBe(
      `the package's demo default (no --config, ${CONFIG_FILE_VARIABLE} or ${join(d, 'absent', 'config.json')})`,
    );
    expect(byDefault.config.offline.maxCount).toBe(500);
  });

  it('TERMINAL_AGENT_CONFIG is relative to the working directory and is not refused as an unknown variable', () => {
    const d = dir();
    marked(d, 'agent.json', 7);
    const r = loadConfig({
      cwd: d,
      env: { [CONFIG_FILE_VARIABLE]: 'agent.json', TERMINAL_AGENT_OFFLINE__MAX_AGE_HOURS: '6' },
    });
    expect(r.file).toBe(join(d, 'agent.json'));
    expect(r.config.offline.maxCount).toBe(7);
    expect(r.config.offline.maxAgeHours).toBe(6);
  });

  it('a TERMINAL_AGENT_CONFIG naming a missing file stops with one line naming the variable, never falling back', () => {
    const d = dir();
    const system = marked(d, 'system.json', 3);
    const err = errorOf(() =>
      loadConfig({ cwd: d, env: { [CONFIG_FILE_VARIABLE]: 'missing.json' }, systemFile: system }),
    );
    expect(err.code).toBe('CONFIG_FILE_MISSING');
    expect(err.message).toBe(`config: file ${join(d, 'missing.json')} (${CONFIG_FILE_VARIABLE}) does not exist`);
  });

  it('without a systemFile (library callers, tests) no system file is looked for', () => {
    const r = loadConfig({ cwd: dir(), env: {} });
    expect(r).toMatchObject({ file: DEMO_DEFAULT, source: 'default' });
    expect(r.reason).not.toMatch(/etc/);
  });

  it('the file variables are no configuration key, and no key could ever take their names', () => {
    const names = new Set(configLeaves().map((l) => envName(l.path)));
    expect(names.has(CONFIG_FILE_VARIABLE)).toBe(false);
    expect(names.has(SYSTEM_CONFIG_VARIABLE)).toBe(false);
    // An unknown variable is still refused.
    expect(errorOf(() => loadConfig({ cwd: dir(), env: { TERMINAL_AGENT_CONFIGG: 'x' } })).message).toMatch(
      /unknown environment variable TERMINAL_AGENT_CONFIGG/,
    );
  });
});
