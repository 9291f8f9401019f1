import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { testCerts } from '../helpers/certs.js';
import { NO_SYSTEM_CONFIG } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * The installed CLI run from a working directory that is not the install folder
 * (docs/operations.md, "Files the agent finds in its own folder"): its bundled files
 * (config/default.json, config/environments.json, config/demo-seed.json, the page) are found
 * from the package, and a non-local environment with placeholder hosts is refused at start.
 */
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(REPO, 'dist/src/cli/bin.js');

const children: ChildProcessWithoutNullStreams[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  }
  while (cleanups.length > 0) cleanups.pop()?.();
});

function workDir(): string {
  const t = tempDir('terminal-agent-cwd-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** The environment of a child: no TERMINAL_AGENT_* of the developer's shell and no system file (never the machine's /etc), plus `extra`. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TERMINAL_AGENT_')));
  return { ...env, TERMINAL_AGENT_SYSTEM_CONFIG: NO_SYSTEM_CONFIG, ...extra };
}

/** The compiled CLI must be built from the sources under test, or it would prove old code. */
function assertBuilt(): void {
  expect(existsSync(BIN), 'run `npm run build` (npm test builds first)').toBe(true);
  for (const f of [
    'src/config/load.ts',
    'src/config/bundled.ts',
    'src/ui/local/static-page.ts',
    'src/cli/commands/config.ts',
    'src/cli/main.ts',
    'src/cli/options.ts',
    'src/agent.ts',
  ]) {
    const js = join(REPO, 'dist', f.replace(/\.ts$/, '.js'));
    expect(
      existsSync(js) && statSync(js).mtimeMs >= statSync(join(REPO, f)).mtimeMs,
      `dist is older than ${f}: run \`npm run build\``,
    ).toBe(true);
  }
}

function run(args: string[], cwd: string, env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return child;
}

async function finished(
  child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, stdout, stderr };
}

/** Resolves with stdout so far once it matches `pattern`; rejects when the child exits first. */
function waitForOutput(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) resolvePromise(m);
    });
    child.once('exit', (code) =>
      reject(new Error(`exited with ${String(code)} before ${String(pattern)}: ${err}${out}`)),
    );
  });
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  child.kill('SIGTERM');
  return exited;
}

describe('the CLI run outside its install folder', () => {
  it("config show reads the package's config/default.json and environments.json", async () => {
    const cwd = workDir();
    const r = await finished(run(['config', 'show'], cwd));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout) as {
      file: string;
      fileSource: string;
      endpoints: { baseUrl: string };
      config: { sim: { seedFile: string }; dataDir: string };
    };
    expect(shown.file).toBe(join(REPO, 'config', 'default.json'));
    expect(shown.fileSource).toBe('default');
    expect(shown.endpoints.baseUrl).toBe('https://127.0.0.1:8443');
    expect(shown.config.sim.seedFile).toBe(join(REPO, 'config', 'demo-seed.json'));
    expect(shown.config.dataDir).toBe(join(cwd, 'data'));
  });

  it('config show names the placeholder hosts of environment eu without failing', async () => {
    const r = await finished(run(['--environment', 'eu', 'config', 'show'], workDir()));
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { placeholderHosts: string[] }).placeholderHosts).toEqual([
      'platform.baseUrl',
      'platform.authUrl',
      'platform.deviceAuthUrl',
    ]);
  });

  it('start with environment eu and no URLs is refused with one line naming the keys', async () => {
    const cwd = workDir();
    const r = await finished(
      run(['--log-level', 'silent', '--environment', 'eu', '--data-dir', join(cwd, 'data'), 'start'], cwd),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `terminal-agent: config: environment eu has no real platform hosts: set platform.baseUrl, platform.authUrl, platform.deviceAuthUrl (or put the real hosts in ${join(REPO, 'config', 'environments.json')}) [CONFIG_INVALID]\n`,
    );
  });

  it("--version prints the package's version, not the working directory's package.json", async () => {
    const cwd = workDir();
    writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'terminal-agent', version: '9.9.9-decoy' }));
    const r = await finished(run(['--version'], cwd));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      `${(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version}\n`,
    );
  });

  it('sim finds the bundled seed; start with environment eu and the URLs set is accepted, reaches the platform and serves the page', async () => {
    const certs = testCerts();
    const simCwd = workDir();
    const sim = run(['--log-level', 'silent', 'sim', '--port', '0', '--mtls-port', '0', '--certs', certs.dir], simCwd);
    const [, apiUrl, mtlsUrl] = await waitForOutput(
      sim,
      /api (https:\/\/127\.0\.0\.1:\d+) {2}device auth (https:\/\/127\.0\.0\.1:\d+)/,
    );

    const cwd = workDir();
    const agent = run(
      ['--log-level', 'silent', '--environment', 'eu', '--data-dir', join(cwd, 'data'), '--api-port', '0', 'start'],
      cwd,
      {
        TERMINAL_AGENT_PLATFORM__BASE_URL: apiUrl as string,
        TERMINAL_AGENT_PLATFORM__AUTH_URL: apiUrl as string,
        TERMINAL_AGENT_PLATFORM__DEVICE_AUTH_URL: mtlsUrl as string,
        // The zone `terminal-agent sim` (standard profile) writes its server times in: environment eu names none.
        TERMINAL_AGENT_PLATFORM__TIME_ZONE: 'UTC',
        TERMINAL_AGENT_IDENTITY__CERT_FILE: certs.deviceCert,
        TERMINAL_AGENT_IDENTITY__KEY_FILE: certs.deviceKey,
        TERMINAL_AGENT_IDENTITY__CA_FILE: certs.caCert,
        TERMINAL_AGENT_SIM__EMBEDDED: 'false',
        // Real ports outside environment local (simulated ones are refused); none opened here.
        TERMINAL_AGENT_DEVICES__SIMULATE: 'false',
        TERMINAL_AGENT_DEVICES__READER__ENABLED: 'false',
        TERMINAL_AGENT_DEVICES__DISPLAY__ENABLED: 'false',
        TERMINAL_AGENT_DEVICES__SCANNER__ENABLED: 'false',
      },
    );
    const [, pageUrl] = await waitForOutput(agent, /Counter page: (http:\/\/127\.0\.0\.1:\d+)\//);
    // A device token from the platform at the URLs given (not ready overall: no reader is enabled).
    await untilTrue(
      'a device token (/readyz checks.token.ok)',
      async () =>
        ((await (await fetch(`${pageUrl}/readyz`)).json()) as { checks: { token: { ok: boolean } } }).checks.token.ok,
      { everyMs: 100 },
    );
    const page = await fetch(`${pageUrl}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const css = await fetch(`${pageUrl}/assets/styles.css`);
    expect(css.status).toBe(200);
    expect(readFileSync(join(REPO, 'src/ui/page/styles.css'), 'utf8')).toBe(await css.text());
    expect(await stop(agent)).toBe(0);
    expect(await stop(sim)).toBe(0);
  });
});
