import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cleanEnv, repoRoot } from '../../scripts/lib/repo.js';
import { writeProductionConfig } from '../../scripts/lib/production-profile.js';
import { testCerts } from '../helpers/certs.js';
import { NO_SYSTEM_CONFIG, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until, untilTrue } from '../helpers/wait.js';

/**
 * `terminal-agent start` sent SIGHUP (`systemctl reload terminal-agent`, a closed ssh session;
 * docs/operations.md, "Reloading the configuration"): the built CLI, on the production profile
 * (platform on a loopback port nobody listens on, no serial ports), with its configuration
 * file rewritten between signals. One agent for the whole file; the tests run in order.
 */
const REPO = repoRoot();

interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** The compiled CLI must be built from the sources under test, or it would prove old code. */
function assertBuilt(): void {
  for (const f of ['src/cli/commands/start.ts', 'src/cli/reload.ts', 'src/cli/options.ts', 'src/config/load.ts']) {
    const js = join(REPO, 'dist', f.replace(/\.ts$/, '.js'));
    expect(
      existsSync(js) && statSync(js).mtimeMs >= statSync(join(REPO, f)).mtimeMs,
      `dist is older than ${f}: run \`npm run build\``,
    ).toBe(true);
  }
}

const tmp = tempDir('terminal-agent-sighup-');
let child: ChildProcessWithoutNullStreams;
let configFile: string;
let clientConfig: string;
let base: Record<string, unknown>;
let url: string;
let out = '';
/** Where the lines of the current test start in `out`. */
let mark = 0;

function lines(): Line[] {
  return out
    .slice(mark)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

/** Waits (up to 10 s) for a log line after the mark that `match` accepts. */
async function lineWhere(match: (l: Line) => boolean): Promise<Line> {
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const found = await until(
    'a log line',
    () => lines().find(match),
    (l) => l !== undefined || exited(),
    { everyMs: 25 },
  ).catch(() => undefined);
  if (found !== undefined) return found;
  throw new Error(
    `no such log line (agent ${child.exitCode !== null || child.signalCode !== null ? `exited: ${child.exitCode ?? child.signalCode}` : 'running'}):\n${out.slice(mark).slice(-3000)}`,
  );
}

function writeConfig(edit: (c: Record<string, unknown>) => void = () => {}): void {
  const c = structuredClone(base);
  edit(c);
  writeFileSync(configFile, `${JSON.stringify(c, null, 2)}\n`);
}

/**
 * Sends SIGHUP, waits until the reload it starts has ended (its last line, or its error line)
 * and answers the reload's lines (the agent's own, e.g. ports missing, may come in between).
 */
async function hangUp(): Promise<Line[]> {
  mark = out.length;
  child.kill('SIGHUP');
  await lineWhere((l) => l.msg.startsWith('configuration reloaded') || l.msg.startsWith('configuration not reloaded'));
  return lines().filter((l) => l.msg.startsWith('SIGHUP') || l.msg.startsWith('configuration'));
}

async function alive(): Promise<void> {
  expect(child.exitCode).toBeNull();
  expect(child.signalCode).toBeNull();
  const res = await fetch(`${url}/healthz`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'ok' });
}

async function runningLevel(): Promise<string> {
  const port = new URL(url).port;
  // The CLI's own copy of the first configuration: the agent's file is broken or changed on purpose.
  const r = await runCli(['--config', clientConfig, '--api-port', port, 'log-level', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { level: string }).level;
}

beforeAll(async () => {
  assertBuilt();
  configFile = writeProductionConfig(tmp.dir, testCerts());
  base = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  clientConfig = join(tmp.dir, 'client.json');
  writeFileSync(clientConfig, JSON.stringify(base));
  child = spawn(process.execPath, [builtCli(REPO), '--config', configFile, 'start'], {
    cwd: REPO,
    env: { ...cleanEnv(), TERMINAL_AGENT_SYSTEM_CONFIG: NO_SYSTEM_CONFIG },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await until(
    'the counter page line',
    () => out,
    (o) => /Counter page: (http:\/\/\S+)\//.test(o) || child.exitCode !== null,
    { timeoutMs: 20_000, everyMs: 25 },
  );
  if (child.exitCode !== null) throw new Error(`no counter page:\n${out.slice(-3000)}`);
  url = (/Counter page: (http:\/\/\S+)\//.exec(out) as RegExpExecArray)[1] as string;
}, 30_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  tmp.cleanup();
});

describe('terminal-agent start and SIGHUP', () => {
  it('keeps running on SIGHUP with the file unchanged, and answers /healthz', async () => {
    const seen = await hangUp();
    await alive();
    expect(seen.map((l) => l.msg)).toEqual([
      'SIGHUP: reloading the configuration',
      'configuration reloaded: log.level info (unchanged)',
    ]);
  });

  it('applies a new log.level to the running agent (the level the local API reports)', async () => {
    expect(await runningLevel()).toBe('info');
    writeConfig((c) => ((c.log as Record<string, unknown>).level = 'debug'));
    const seen = await hangUp();
    expect(seen.map((l) => l.msg)).toContain('configuration reloaded: log.level debug (was info)');
    expect(seen.filter((l) => l.level >= 40)).toEqual([]);
    expect(await runningLevel()).toBe('debug');
    await alive();
  });

  it('keeps running on its configuration when the file is not valid, with one error line naming the file', async () => {
    writeFileSync(configFile, '{"log": {"level": "debug"},');
    let seen = await hangUp();
    await alive();
    let errors = seen.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toContain(
      `configuration not reloaded, the agent keeps running on its current one: config: ${configFile} is not valid JSON`,
    );
    expect(await runningLevel()).toBe('debug');

    // Valid JSON, a value the schema refuses: the same message start-up gives, naming the file.
    writeConfig((c) => ((c.log as Record<string, unknown>).level = 'loud'));
    seen = await hangUp();
    await alive();
    errors = seen.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(/configuration not reloaded, .*: config: log\.level: .*\(from .*production\.json\)/);
    const start = await runCli(['--config', configFile, 'config', 'show']);
    expect(errors[0]?.msg).toContain(
      start.stderr.replace(/^terminal-agent: /, '').replace(/ \[CONFIG_INVALID\]\n$/, ''),
    );
    expect(await runningLevel()).toBe('debug');
  });

  it('names the changed keys that need a restart in one warning, never their values', async () => {
    const secretish = join(tmp.dir, 'elsewhere-7f3a9c');
    writeConfig((c) => {
      (c.log as Record<string, unknown>).level = 'info';
      c.dataDir = secretish;
      (c.api as Record<string, unknown>).port = 48_917;
    });
    const seen = await hangUp();
    await alive();
    const warnings = seen.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe(
      'configuration changed but not applied until a restart (systemctl restart terminal-agent): api.port, dataDir',
    );
    const said = out.slice(mark);
    expect(said).not.toContain('elsewhere-7f3a9c');
    expect(said).not.toContain('48917');
    // log.level went back to info: applied, not in the warning.
    expect(seen.map((l) => l.msg)).toContain('configuration reloaded: log.level info (was debug)');
    expect(await runningLevel()).toBe('info');
  });

  it('survives SIGHUPs in quick succession, reloading one at a time, and still stops gracefully on SIGTERM', async () => {
    writeConfig();
    mark = out.length;
    for (let i = 0; i < 5; i++) child.kill('SIGHUP');
    await lineWhere((l) => l.msg.startsWith('configuration reloaded'));
    await alive();
    // Each reload's start line is followed by its end line before the next starts.
    // A quiet time for the reloads still to come: nothing says the last of the merged signals has been handled.
    await new Promise((r) => setTimeout(r, 300));
    const reloads = lines().filter(
      (l) => l.msg === 'SIGHUP: reloading the configuration' || l.msg.startsWith('configuration reloaded'),
    );
    // Signals sent while one is pending merge into one (signal(7)): at least one reload, whole.
    expect(reloads.length).toBeGreaterThanOrEqual(2);
    reloads.forEach((l, i) => expect(l.msg.startsWith('SIGHUP') ? 0 : 1, `line ${i}: ${l.msg}`).toBe(i % 2));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once('exit', (code, signal) => r([code, signal])),
    );
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  });
});

const hasSocat = spawnSync('socat', ['-V']).status === 0;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('terminal-agent start whose log reader goes away', () => {
  it('keeps running when its stdout pipe is closed (EPIPE), on SIGHUP too', async () => {
    assertBuilt();
    const dir = join(tmp.dir, 'pipe');
    mkdirSync(dir);
    const file = writeProductionConfig(dir, testCerts());
    const agent = spawn(process.execPath, [builtCli(REPO), '--config', file, 'start'], {
      cwd: REPO,
      env: { ...cleanEnv(), TERMINAL_AGENT_SYSTEM_CONFIG: NO_SYSTEM_CONFIG },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      agent.once('exit', (code, signal) => r([code, signal])),
    );
    try {
      let text = '';
      agent.stdout.on('data', (b: Buffer) => (text += b.toString('utf8')));
      await until(
        'the counter page line',
        () => text,
        (s) => /Counter page: http/.test(s),
        { timeoutMs: 20_000, everyMs: 50 },
      );
      const page = (/Counter page: (http:\/\/\S+)\//.exec(text) as RegExpExecArray)[1] as string;
      agent.stdout.destroy();
      for (let i = 0; i < 3; i++) {
        agent.kill('SIGHUP');
        // Spaced so that each signal is a reload of its own; with its stdout closed nothing tells when one has ended.
        await new Promise((r) => setTimeout(r, 200));
      }
      expect([agent.exitCode, agent.signalCode]).toEqual([null, null]);
      const res = await fetch(`${page}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      agent.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
    }
  }, 40_000);
});

/**
 * A field engineer starts the agent in an ssh session and closes it: the agent runs on a
 * pseudo-terminal (socat's, in a session of its own with it as controlling terminal) and
 * socat is killed, so the terminal hangs up: SIGHUP, then every write to it fails (EIO).
 */
describe.skipIf(!hasSocat)('terminal-agent start on a terminal that hangs up (skipped: socat is not installed)', () => {
  const started: number[] = [];
  afterAll(() => {
    for (const pid of started) if (running(pid)) process.kill(pid, 'SIGKILL');
  });

  for (const pretty of [false, true]) {
    it(`keeps running and serving once the terminal is gone, and stops on SIGTERM (${pretty ? 'pretty' : 'JSON'} logs)`, async () => {
      assertBuilt();
      const dir = join(tmp.dir, pretty ? 'pretty' : 'json');
      mkdirSync(dir);
      const file = writeProductionConfig(dir, testCerts());
      const c = JSON.parse(readFileSync(file, 'utf8')) as { log: Record<string, unknown> };
      c.log.pretty = pretty;
      writeFileSync(file, JSON.stringify(c));
      const socat = spawn(
        'socat',
        ['-u', `EXEC:${process.execPath} ${builtCli(REPO)} --config ${file} start,pty,setsid,ctty,stderr`, 'STDOUT'],
        {
          cwd: REPO,
          env: { ...cleanEnv(), TERMINAL_AGENT_SYSTEM_CONFIG: NO_SYSTEM_CONFIG },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let text = '';
      socat.stdout.on('data', (b: Buffer) => (text += b.toString('utf8')));
      socat.stderr.on('data', (b: Buffer) => (text += b.toString('utf8')));
      const gone = new Promise((r) => socat.once('exit', r));
      // pino writes the pid in each JSON line, pino-pretty (from its worker, maybe after the page line) in "(terminal-agent/PID):".
      const pidIn = (): number => Number((/"pid":(\d+)/.exec(text) ?? /\(terminal-agent\/(\d+)\):/.exec(text))?.[1]);
      await until(
        'the counter page and a log line',
        () => text,
        (s) => /Counter page: http/.test(s) && pidIn() > 0,
        { timeoutMs: 20_000, everyMs: 50 },
      );
      const pid = pidIn();
      const page = (/Counter page: (http:\/\/\S+)\//.exec(text) as RegExpExecArray)[1] as string;
      expect(running(pid), text).toBe(true);
      started.push(pid);
      socat.kill('SIGKILL');
      await gone;
      // The hangup reaches the agent with nothing to observe (its terminal is gone): a time for it to act on it.
      await new Promise((r) => setTimeout(r, 300));
      // A reload writes its lines to the terminal that is gone.
      process.kill(pid, 'SIGHUP');
      // Its reload writes to the terminal that is gone, unseen: a time for a failed write to stop it, if one would.
      await new Promise((r) => setTimeout(r, 300));
      expect(running(pid)).toBe(true);
      const res = await fetch(`${page}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      process.kill(pid, 'SIGTERM');
      await untilTrue('the agent stops on SIGTERM', () => !running(pid), { everyMs: 50 });
    }, 40_000);
  }
});
