import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import type { DiagReport } from '../../src/diag/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort } from '../diag/diag-setup.js';

/**
 * The field engineer's defaults (README, "Command line" and "Exit codes"): which configuration
 * file a command reads, --version, simulated devices refused outside environment local,
 * --json on every command with errors as JSON, and the usage exit code.
 */
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function dir(): string {
  const t = tempDir('terminal-agent-cli-defaults-');
  cleanups.push(t.cleanup);
  return t.dir;
}

function writeJson(file: string, content: unknown): string {
  writeFileSync(file, JSON.stringify(content), { mode: 0o600 });
  return file;
}

/** The one JSON error line under --json. */
function jsonError(stderr: string): { code: string; message: string } {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0] as string) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message']);
  return parsed.error;
}

describe('which configuration file a command reads', () => {
  it('config show names the file and why: variable, system file, demo default', async () => {
    const d = dir();
    const system = writeJson(join(d, 'system.json'), { offline: { maxCount: 3 } });
    const variable = writeJson(join(d, 'variable.json'), { offline: { maxCount: 2 } });
    type Shown = { file: string; fileSource: string; fileReason: string; config: { offline: { maxCount: number } } };

    const byVariable = await runCli(['config', 'show'], {
      TERMINAL_AGENT_CONFIG: variable,
      TERMINAL_AGENT_SYSTEM_CONFIG: system,
    });
    expect(byVariable.code).toBe(0);
    expect(JSON.parse(byVariable.stdout) as Shown).toMatchObject({
      file: variable,
      fileSource: 'variable',
      fileReason: 'named by TERMINAL_AGENT_CONFIG',
      config: { offline: { maxCount: 2 } },
    });

    const bySystem = JSON.parse(
      (await runCli(['config', 'show'], { TERMINAL_AGENT_SYSTEM_CONFIG: system })).stdout,
    ) as Shown;
    expect(bySystem).toMatchObject({ file: system, fileSource: 'system', config: { offline: { maxCount: 3 } } });

    const byDefault = JSON.parse((await runCli(['config', 'show'])).stdout) as Shown;
    expect(byDefault).toMatchObject({ file: join(REPO, 'config', 'default.json'), fileSource: 'default' });

    const byFlag = JSON.parse(
      (await runCli(['--config', variable, 'config', 'show'], { TERMINAL_AGENT_SYSTEM_CONFIG: system })).stdout,
    ) as Shown;
    expect(byFlag).toMatchObject({ file: variable, fileSource: 'flag' });
  });

  it('diag without --config on an installed terminal checks the system file, not the demo one, and shows the version', async () => {
    const d = dir();
    const system = writeJson(join(d, 'system.json'), {
      environment: 'local',
      dataDir: join(d, 'data'),
      api: { port: await closedPort() },
    });
    const r = await runCli(['diag', '--json', '--timeout', '3000'], { TERMINAL_AGENT_SYSTEM_CONFIG: system });
    const report = JSON.parse(r.stdout) as DiagReport;
    expect(report.version).toBe(VERSION);
    const config = report.checks.find((c) => c.id === 'config');
    expect(config).toMatchObject({ status: 'ok', facts: { file: system, fileSource: 'system' } });
    expect(config?.finding).toContain(system);

    const text = await runCli(['diag', '--timeout', '3000'], { TERMINAL_AGENT_SYSTEM_CONFIG: system });
    expect(text.stdout.trim().split('\n').at(-1)).toMatch(
      new RegExp(`; terminal-agent ${VERSION.replace(/\./g, '\\.')}$`),
    );
  });
});

describe('--version', () => {
  it('prints the package.json version, as text or JSON, exit 0', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(await runCli(['-V'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(await runCli(['--version', '--json'])).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ version: VERSION })}\n`,
      stderr: '',
    });
  });
});

describe('simulated devices outside environment local', () => {
  const urls = {
    TERMINAL_AGENT_PLATFORM__BASE_URL: 'https://api.example.test',
    TERMINAL_AGENT_PLATFORM__AUTH_URL: 'https://auth.example.test',
    TERMINAL_AGENT_PLATFORM__DEVICE_AUTH_URL: 'https://device.example.test:9021',
  };

  it('start with environment eu and devices.simulate true is refused in one line naming the key, before anything starts', async () => {
    const d = dir();
    const r = await runCli(['--log-level', 'silent', '--environment', 'eu', '--data-dir', join(d, 'data'), 'start'], {
      ...urls,
      TERMINAL_AGENT_DEVICES__SIMULATE: 'true',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'terminal-agent: config: devices.simulate: simulated peripherals run only in environment local, not eu: set devices.simulate to false and configure the ports (devices.reader.path or devices.reader.usb) [CONFIG_INVALID]\n',
    );
    const json = await runCli(
      ['--log-level', 'silent', '--environment', 'eu', '--data-dir', join(d, 'data'), 'start', '--json'],
      { ...urls, TERMINAL_AGENT_DEVICES__SIMULATE: 'true' },
    );
    expect(json.code).toBe(1);
    expect(jsonError(json.stderr)).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('devices.simulate'),
    });
  });
});

describe("the platform's time zone outside environment local", () => {
  it('start with environment eu, real hosts and no platform.timeZone is refused in one line naming the key, before anything starts', async () => {
    const d = dir();
    const env = {
      TERMINAL_AGENT_PLATFORM__BASE_URL: 'https://api.example.test',
      TERMINAL_AGENT_PLATFORM__AUTH_URL: 'https://auth.example.test',
      TERMINAL_AGENT_PLATFORM__DEVICE_AUTH_URL: 'https://device.example.test:9021',
      TERMINAL_AGENT_DEVICES__SIMULATE: 'false',
    };
    const r = await runCli(
      ['--log-level', 'silent', '--environment', 'eu', '--data-dir', join(d, 'data'), 'start'],
      env,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^terminal-agent: config: environment eu does not name the platform's time zone: set platform\.timeZone to the IANA zone its server times are written in \(e\.g\. Asia\/Singapore; ask the platform operator\), or add "timeZone" to its entry in .*environments\.json \[CONFIG_INVALID\]\n$/,
    );
  });
});

describe('errors under --json', () => {
  it('a failing command prints {"error":{"code","message"}} on stderr, nothing on stdout, and keeps its exit code', async () => {
    const d = dir();
    const r = await runCli(['--json', '--data-dir', d, '--api-port', String(await closedPort()), 'transactions']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    // No token in a fresh data directory: the agent never ran here.
    expect(jsonError(r.stderr)).toMatchObject({
      code: expect.stringMatching(/^API_/),
      message: expect.stringContaining('local-api.token'),
    });

    const missing = await runCli(['config', 'show', '--json', '--config', join(d, 'missing.json')]);
    expect(missing.code).toBe(1);
    expect(jsonError(missing.stderr)).toEqual({
      code: 'CONFIG_FILE_MISSING',
      message: `config: file ${join(d, 'missing.json')} does not exist`,
    });
  });

  it('without --json the same error is one line of text', async () => {
    const d = dir();
    const r = await runCli(['config', 'show', '--config', join(d, 'missing.json')]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `terminal-agent: config: file ${join(d, 'missing.json')} does not exist [CONFIG_FILE_MISSING]\n`,
    });
  });
});

describe('usage errors exit 64', () => {
  it('an unknown option, an unknown command, a missing argument, a bad choice, no command', async () => {
    const unknownOption = await runCli(['config', 'show', '--bogus']);
    expect(unknownOption.code).toBe(64);
    expect(unknownOption.stderr).toMatch(/^error: unknown option '--bogus'/);
    expect(unknownOption.stdout).toBe('');
    expect((await runCli(['sael', '5'])).code).toBe(64);
    expect((await runCli(['cancel'])).code).toBe(64);
    expect((await runCli(['sale', '5', '--method', 'cash'])).code).toBe(64);
    expect((await runCli([])).code).toBe(64);
    expect((await runCli(['--help'])).code).toBe(0);
  });

  it('argument rules the commands check themselves exit 64 too, before loading anything', async () => {
    const neither = await runCli(['capture']);
    expect(neither).toEqual({
      code: 64,
      stdout: '',
      stderr: 'terminal-agent: give either a transaction id or --all [USAGE]\n',
    });
    expect((await runCli(['transactions', '--limit', 'lots'])).code).toBe(64);
    expect((await runCli(['queue', 'export', '--format', 'xml'])).code).toBe(64);
  });

  it('under --json a usage error is {"error":{"code":"USAGE",...}} on stderr', async () => {
    const r = await runCli(['--json', 'cancel']);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(jsonError(r.stderr)).toEqual({ code: 'USAGE', message: "missing required argument 'transaction'" });
    expect(jsonError((await runCli(['sael', '--json'])).stderr)).toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining("unknown command 'sael'"),
    });
    expect(jsonError((await runCli(['--json'])).stderr)).toMatchObject({ code: 'USAGE' });
  });
});

/** Every command that runs something (no subcommands of its own), with its name path. */
function leafCommands(cmd: Command, path: string[] = []): Array<{ path: string[]; cmd: Command }> {
  return cmd.commands.flatMap((c) => {
    const here = [...path, c.name()];
    return c.commands.length === 0
      ? [{ path: here, cmd: c }]
      : [
          ...(c.registeredArguments.length === 0 && !hasAction(c) ? [] : [{ path: here, cmd: c }]),
          ...leafCommands(c, here),
        ];
  });
}

function hasAction(c: Command): boolean {
  return (
    (c as unknown as { _actionHandler: unknown })._actionHandler !== null &&
    (c as unknown as { _actionHandler: unknown })._actionHandler !== undefined
  );
}

describe('--json on every command', () => {
  it('--json is one global option: no command declares its own', () => {
    const program = buildProgram();
    expect(program.options.some((o) => o.long === '--json')).toBe(true);
    for (const { path, cmd } of leafCommands(program))
      expect(
        cmd.options.map((o) => o.long),
        path.join(' '),
      ).not.toContain('--json');
  });

  it('every command accepts --json and answers in JSON: its error on stderr when the configuration is bad', async () => {
    const d = dir();
    const commands = leafCommands(buildProgram());
    expect(commands.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining([
        'start',
        'sim',
        'config show',
        'certs gen-dev',
        'devices show-qr',
        'queue export',
        'diag',
        'diag bundle',
      ]),
    );
    for (const { path, cmd } of commands) {
      const args = [...path, ...cmd.registeredArguments.map(() => '1'), '--json'];
      const name = path.join(' ');
      if (name === 'certs gen-dev') {
        const r = await runCli([...args, '--dir', join(d, 'certs')]);
        expect(r.code, name).toBe(0);
        expect(JSON.parse(r.stdout), name).toMatchObject({ dir: join(d, 'certs'), generated: true });
        continue;
      }
      if (name === 'diag bundle') args.push('--out', join(d, 'bundle.json'));
      const r = await runCli(args, { TERMINAL_AGENT_OFFLINE__MAX_COUNT: 'many' });
      if (name === 'diag' || name === 'diag bundle') {
        // The configuration is diag's first finding, reported in its JSON on stdout.
        expect(JSON.parse(r.stdout), name).toMatchObject({ ok: false });
        continue;
      }
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stdout, name).toBe('');
      expect(jsonError(r.stderr), name).toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining('offline.maxCount'),
      });
    }
  });
});
