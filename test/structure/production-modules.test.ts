import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli, cleanEnv, repoRoot } from '../../scripts/lib/repo.js';
import { moduleRecorder, writeProductionConfig } from '../../scripts/lib/production-profile.js';
import type { DevCertPaths } from '../../src/identity/index.js';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until, untilTrue } from '../helpers/wait.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The CLI modules `start` needs: parsing the command line (every command registers itself) and nothing a command's action loads. */
const CLI_FOR_START = /^cli\/(bin|main|options|usage|transaction-output|commands\/[a-z-]+)\.js$/;

/**
 * Spawns the built `terminal-agent start` with the module recorder (scripts/lib/production-profile.ts),
 * waits until it prints its counter page (with `untilReady`, until its /readyz answers 200: token
 * held, platform reachable, reader connected), stops it, and answers the src-relative paths of the
 * agent's modules it loaded, the URLs of every ES module, and node's built-in modules and the
 * CommonJS files it loaded.
 */
async function modulesLoadedByStart(
  args: string[],
  extraEnv: Record<string, string> = {},
  untilReady = false,
): Promise<{ src: string[]; urls: string[]; loaded: string[] }> {
  const repoDir = repoRoot();
  const tmp = tempDir('production-modules-');
  cleanups.push(tmp.cleanup);
  const recorder = moduleRecorder(tmp.dir);
  const env = {
    ...cleanEnv(),
    TERMINAL_AGENT_SYSTEM_CONFIG: `${tmp.dir}/none.json`,
    TERMINAL_AGENT_DATA_DIR: `${tmp.dir}/data`,
    TERMINAL_AGENT_LOG__PRETTY: 'false',
    ...extraEnv,
  };
  const child = spawn(process.execPath, [...recorder.importArgs, builtCli(repoDir), ...args, 'start'], {
    cwd: repoDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no counter page within 20 s:\n${out.slice(-2000)}`)), 20_000);
    child.stdout.on('data', () => {
      if (out.includes('Counter page:')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited (${code}) before its counter page:\n${out.slice(-2000)}`));
    });
  });
  if (untilReady) await readyz(/Counter page: (http:\/\/[^\s/]+)/.exec(out)?.[1] ?? '');
  // The recorder writes what node loaded so far on SIGUSR2.
  child.kill('SIGUSR2');
  await untilTrue('the recorder to write what node loaded', () => readFileSync(recorder.loaded, 'utf8') !== '', {
    everyMs: 50,
  });
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  const urls = readFileSync(recorder.log, 'utf8').split('\n').filter(Boolean);
  const src = urls.flatMap((u) => {
    const m = /\/dist\/src\/(.+)$/.exec(u);
    return m === null ? [] : [m[1] as string];
  });
  const loaded = readFileSync(recorder.loaded, 'utf8').split('\n').filter(Boolean);
  return { src, urls, loaded };
}

async function readyz(base: string): Promise<void> {
  await until(
    `${base}/readyz to answer 200`,
    () =>
      fetch(`${base}/readyz`).then(
        async (res) => (await res.arrayBuffer(), res.status),
        () => 0,
      ),
    (status) => status === 200,
    { timeoutMs: 20_000, everyMs: 50 },
  );
}

/** The embedded demo (the default configuration) on ports of its own, with the test certificates. */
function demoEnv(certs: DevCertPaths): Record<string, string> {
  return {
    TERMINAL_AGENT_SIM__API_PORT: '0',
    TERMINAL_AGENT_SIM__MTLS_PORT: '0',
    TERMINAL_AGENT_IDENTITY__CERT_FILE: certs.deviceCert,
    TERMINAL_AGENT_IDENTITY__KEY_FILE: certs.deviceKey,
    TERMINAL_AGENT_IDENTITY__CA_FILE: certs.caCert,
  };
}

let production: ReturnType<typeof modulesLoadedByStart> | undefined;

/** One production start (real platform, real serial ports) whose list every production check reads. */
function productionStart(): ReturnType<typeof modulesLoadedByStart> {
  production ??= (() => {
    const certs = testCerts();
    const tmp = tempDir('production-config-');
    cleanups.push(tmp.cleanup);
    return modulesLoadedByStart(['--config', writeProductionConfig(tmp.dir, certs)]);
  })();
  return production;
}

describe('what `terminal-agent start` loads', () => {
  it('in production (real platform, real serial ports) loads no demo platform, no simulated devices, no diagnostics and no CLI-only module', async () => {
    const { src, urls } = await productionStart();
    // The recorder works: the agent itself is in the list.
    expect(src).toContain('agent.js');
    expect(src).toContain('payments/index.js');
    expect(src.filter((p) => p.startsWith('sim/'))).toEqual([]);
    expect(src.filter((p) => p.startsWith('diag/'))).toEqual([]);
    expect(urls.filter((u) => u.includes('/@serialport/binding-mock/'))).toEqual([]);
    expect(src.filter((p) => p.startsWith('cli/') && !CLI_FOR_START.test(p))).toEqual([]);
  }, 60_000);

  it('in production and with the embedded demo makes no date formatter: the first pages in about 8 MiB of ICU date data (docs/performance.md, "Memory")', async () => {
    const demo = await modulesLoadedByStart(['--api-port', '0'], demoEnv(testCerts()), true);
    for (const { loaded } of [await productionStart(), demo]) {
      // The recorder works: it wrote its list.
      expect(loaded).toContain('NativeModule http');
      expect(loaded.filter((l) => l.startsWith('Intl.DateTimeFormat'))).toEqual([]);
    }
  }, 60_000);

  it('in production loads neither node\'s own copy of undici nor the whole of undici (docs/performance.md, "Memory")', async () => {
    const { urls, loaded } = await productionStart();
    // The recorder works: the built-ins and undici's dispatcher are in the list.
    expect(loaded).toContain('NativeModule http');
    expect(loaded.some((f) => f.endsWith('/undici/lib/dispatcher/agent.js'))).toBe(true);
    // An ES import of node:http reads its lazy WebSocket export, which loads node's bundled undici.
    expect(urls).not.toContain('node:http');
    expect(loaded.filter((m) => m.includes('internal/deps/undici'))).toEqual([]);
    // undici's index loads fetch, WebSocket, caches and mocks, and node's bundled undici through globalThis.Headers.
    expect(loaded.filter((f) => f.endsWith('/node_modules/undici/index.js'))).toEqual([]);
  }, 60_000);

  it('in production loads prom-client\'s registry and metric types only, not its index with its push gateway, cluster and process metrics (docs/performance.md, "Memory")', async () => {
    const { loaded } = await productionStart();
    // The recorder works: the registry is in the list.
    expect(loaded.some((f) => f.endsWith('/prom-client/lib/registry.js'))).toBe(true);
    expect(
      loaded.filter((f) => /\/prom-client\/(index\.js|lib\/(pushgateway|cluster|defaultMetrics)\.js)$/.test(f)),
    ).toEqual([]);
    expect(loaded.filter((f) => f.includes('/@opentelemetry/'))).toEqual([]);
  }, 60_000);

  it('in production loads serialport\'s stream and binding only, not its index with its parsers and mock binding (docs/performance.md, "Memory")', async () => {
    const { loaded } = await productionStart();
    // The recorder works: the stream and the native binding are in the list.
    expect(loaded.some((f) => f.endsWith('/@serialport/stream/dist/index.js'))).toBe(true);
    expect(loaded.some((f) => f.endsWith('/@serialport/bindings-cpp/dist/linux.js'))).toBe(true);
    expect(loaded.filter((f) => f.endsWith('/node_modules/serialport/dist/index.js'))).toEqual([]);
    expect(
      loaded.filter((f) =>
        /\/@serialport\/(binding-mock|parser-(byte-length|cctalk|inter-byte-timeout|packet-length|ready|regex|slip-encoder|spacepacket))\//.test(
          f,
        ),
      ),
    ).toEqual([]);
  }, 60_000);

  it('with the embedded demo (the default configuration) loads the demo platform and the simulated devices', async () => {
    const certs = testCerts();
    const { src } = await modulesLoadedByStart(['--api-port', '0'], demoEnv(certs));
    expect(src).toContain('sim/index.js');
    expect(src.some((p) => p.startsWith('sim/platform/'))).toBe(true);
    expect(src.some((p) => p.startsWith('sim/devices/'))).toBe(true);
  }, 60_000);
});
