import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { PRODUCTION_NODE_ENV, PRODUCTION_NODE_FLAGS, writeProductionConfig } from '../lib/production-profile.js';
import {
  heapProbe,
  processMemory,
  readHeapProbe,
  type HeapFigures,
  type ProcessMemory,
} from './lib/memory-breakdown.js';
import { builtCli, cleanEnv, repoRoot } from '../lib/repo.js';
import { benchCerts, tempDir } from './lib/certs.js';
import { max, mb, nowMs, percentile, sleep } from './lib/stats.js';
import type { BenchResult, BenchRow, CommonBenchOptions } from './lib/types.js';
import { opt, type BenchDefinition } from './lib/bench-definition.js';

export interface ColdStartOptions extends CommonBenchOptions {
  /** Agent starts timed, one after the other. */
  count?: number;
  /** How long the agent idles after ready before its RSS is read. */
  idleMs?: number;
  /** Give up on a start after this long. */
  readyTimeoutMs?: number;
}

interface StartSample {
  /** Spawn until the counter page URL was printed (local API listening). */
  listening: number;
  /** Spawn until /readyz answered 200. */
  ready: number;
  /** VmRSS after idling, bytes. */
  idleRss: number;
  /** VmHWM (peak RSS), bytes. */
  peakRss: number;
}

/** A field of /proc/<pid>/status in bytes (Linux reports kB). */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
  if (m === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

function counterPageUrl(child: ChildProcess, timeoutMs: number): Promise<{ url: string; at: number }> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => done(new Error(`no "Counter page:" line within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      const at = nowMs();
      // Only the tail is kept: the line may span chunks, log lines before it do not matter.
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      const m = /Counter page: (http:\/\/[^\s/]+)/.exec(seen);
      if (m !== null) done(undefined, { url: m[1] as string, at });
    };
    const onExit = (code: number | null): void =>
      done(new Error(`the agent exited (${code}) before printing its counter page`));
    const done = (err?: Error, value?: { url: string; at: number }): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (err !== undefined) reject(err);
      else resolve(value as { url: string; at: number });
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

async function readyAt(url: string, deadline: number): Promise<number> {
  for (;;) {
    try {
      const res = await request(`${url}/readyz`, { reset: true });
      await res.body.dump();
      if (res.statusCode === 200) return nowMs();
    } catch {
      // Not answering yet.
    }
    if (Date.now() > deadline) throw new Error(`${url}/readyz did not answer 200 in time`);
    await sleep(5);
  }
}

function stopChild(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.exitCode);
      return;
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/**
 * Spawn until the CLI's modules are loaded (nothing started), and the RSS then: how much of
 * a start is loading code.
 */
function moduleLoad(repoDir: string): Promise<{ ms: number; rss: number }> {
  const main = pathToFileURL(join(repoDir, 'dist', 'src', 'cli', 'main.js')).href;
  const script = `await import(${JSON.stringify(main)}); const m = /^VmRSS:\\s+(\\d+)/m.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8')); process.stdout.write('LOADED ' + m[1] + '\\n');`;
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(
      process.execPath,
      [...PRODUCTION_NODE_FLAGS, '--input-type=commonjs', '-e', `(async () => { ${script} })()`],
      { cwd: repoDir, env: { ...cleanEnv(), ...PRODUCTION_NODE_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /LOADED (\d+)/.exec(out);
      if (m !== null) resolve({ ms: nowMs() - t0, rss: Number(m[1]) * 1024 });
    });
    child.once('exit', (code) => {
      if (!/LOADED/.test(out)) reject(new Error(`loading the CLI's modules failed (exit ${code})`));
    });
  });
}

/** What a terminal cannot do without, loaded as the agent loads it (require for node:http, undici's parts from their files: docs/performance.md, "Memory"). */
export const RUNTIME_FLOOR: readonly string[] = [
  'node:http',
  'node:https',
  'better-sqlite3',
  'serialport',
  'undici/lib/dispatcher/agent.js',
  'undici/lib/api/api-request.js',
  'zod',
  'pino',
];

/**
 * What node itself holds on this machine, before any agent code, with production's flags and
 * environment: an empty process, and one with `modules` required (from the repository, so
 * they resolve as the agent's do), after a full GC.
 */
function runtimeRss(repoDir: string, modules: readonly string[]): Promise<number> {
  const requires = modules.map((m) => `require(${JSON.stringify(m)});`).join(' ');
  const script = `const require = (await import('node:module')).createRequire(${JSON.stringify(join(repoDir, 'package.json'))}); ${requires} globalThis.gc?.(); const m = /^VmRSS:\\s+(\\d+)/m.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8')); process.stdout.write('RSS ' + m[1] + '\\n');`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...PRODUCTION_NODE_FLAGS, '--expose-gc', '--input-type=module', '-e', script],
      { cwd: repoDir, env: { ...cleanEnv(), ...PRODUCTION_NODE_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('exit', (code) => {
      const m = /RSS (\d+)/.exec(out);
      if (m === null) reject(new Error(`measuring node's own RSS failed (exit ${code})`));
      else resolve(Number(m[1]) * 1024);
    });
  });
}

interface ProductionSample {
  memory: ProcessMemory;
  /** Only from a start with the heap probe loaded. */
  heap?: HeapFigures;
}

/**
 * `terminal-agent start` as a terminal in production runs it (scripts/lib/production-profile.ts:
 * no embedded demo, real serial ports configured, the platform unreachable, node's flags and
 * environment of the launcher unless `settings` is false), its memory after the counter page
 * is up and `idleMs` have passed; with `probe`, V8's heap figures too (a start of its own: the
 * probe is not in the other figures).
 */
async function productionIdle(
  repoDir: string,
  bin: string,
  certsDir: string,
  idleMs: number,
  timeoutMs: number,
  how: { settings: boolean; probe: boolean },
): Promise<ProductionSample> {
  const dir = tempDir('terminal-agent-bench-production-');
  try {
    const config = writeProductionConfig(dir.dir, benchCerts(certsDir).paths);
    const probe = how.probe ? heapProbe(dir.dir) : undefined;
    const args = [
      ...(how.settings ? PRODUCTION_NODE_FLAGS : []),
      ...(probe?.importArgs ?? []),
      bin,
      '--config',
      config,
      'start',
    ];
    const env = { ...cleanEnv(), ...(how.settings ? PRODUCTION_NODE_ENV : {}) };
    const child = spawn(process.execPath, args, { cwd: repoDir, env, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await counterPageUrl(child, timeoutMs);
      child.stdout?.resume();
      await sleep(idleMs);
      const memory = processMemory(child.pid as number);
      if (probe === undefined) return { memory };
      child.kill('SIGUSR2');
      return { memory, heap: await readHeapProbe(probe.out) };
    } finally {
      await stopChild(child);
    }
  } finally {
    dir.cleanup();
  }
}

/**
 * Cold start (docs/performance.md, "Quality targets"): `terminal-agent start` spawned with a temp
 * data dir, port 0 everywhere and the dev certificates, timed from spawn until /readyz
 * answers 200; then its RSS after idling. Each start gets a fresh data directory.
 */
export async function benchColdStart(opts: ColdStartOptions = {}): Promise<BenchResult> {
  const count = opts.count ?? 3;
  const idleMs = opts.idleMs ?? 3_000;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 20_000;
  const repoDir = opts.repoDir ?? repoRoot();
  const bin = builtCli(repoDir);
  const certs = benchCerts(opts.certsDir);
  const samples: StartSample[] = [];
  const loads: Array<{ ms: number; rss: number }> = [];
  const uncleanExits: string[] = [];
  const production: ProcessMemory[] = [];
  let probed: ProductionSample | undefined;
  let unset: ProcessMemory | undefined;
  let nodeEmpty: number;
  let nodeRuntime: number;
  try {
    nodeEmpty = await runtimeRss(repoDir, []);
    nodeRuntime = await runtimeRss(repoDir, RUNTIME_FLOOR);
    for (let i = 0; i < count; i++)
      production.push(
        (await productionIdle(repoDir, bin, certs.paths.dir, idleMs, readyTimeoutMs, { settings: true, probe: false }))
          .memory,
      );
    probed = await productionIdle(repoDir, bin, certs.paths.dir, idleMs, readyTimeoutMs, {
      settings: true,
      probe: true,
    });
    unset = (
      await productionIdle(repoDir, bin, certs.paths.dir, idleMs, readyTimeoutMs, { settings: false, probe: false })
    ).memory;
    for (let i = 0; i < count; i++) loads.push(await moduleLoad(repoDir));
    for (let i = 0; i < count; i++) {
      const data = tempDir('terminal-agent-bench-cold-');
      const env = {
        ...cleanEnv(),
        TERMINAL_AGENT_DATA_DIR: data.dir,
        TERMINAL_AGENT_API__PORT: '0',
        TERMINAL_AGENT_SIM__API_PORT: '0',
        TERMINAL_AGENT_SIM__MTLS_PORT: '0',
        TERMINAL_AGENT_IDENTITY__CERT_FILE: certs.paths.deviceCert,
        TERMINAL_AGENT_IDENTITY__KEY_FILE: certs.paths.deviceKey,
        TERMINAL_AGENT_IDENTITY__CA_FILE: certs.paths.caCert,
        TERMINAL_AGENT_LOG__PRETTY: 'false',
      };
      const t0 = nowMs();
      // As `npm start` runs it: production's node flags and environment (package.json).
      const child = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, bin, 'start'], {
        cwd: repoDir,
        env: { ...env, ...PRODUCTION_NODE_ENV },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (c: Buffer) => {
        stderr = (stderr + c.toString('utf8')).slice(-2048);
      });
      try {
        const page = await counterPageUrl(child, readyTimeoutMs);
        // Keep draining stdout (info logs) so the agent never blocks on a full pipe.
        child.stdout?.resume();
        const ready = await readyAt(page.url, Date.now() + readyTimeoutMs);
        await sleep(idleMs);
        const pid = child.pid as number;
        samples.push({
          listening: page.at - t0,
          ready: ready - t0,
          idleRss: procStatusBytes(pid, 'VmRSS'),
          peakRss: procStatusBytes(pid, 'VmHWM'),
        });
      } catch (err) {
        throw new Error(`${(err as Error).message}${stderr ? `; agent stderr: ${stderr.trim()}` : ''}`, {
          cause: err,
        });
      } finally {
        const code = await stopChild(child);
        data.cleanup();
        if (code !== 0) uncleanExits.push(code === null ? 'killed' : `exit ${code}`);
      }
    }
  } finally {
    certs.cleanup();
  }

  const ready = samples.map((s) => s.ready);
  const rss = samples.map((s) => mb(s.idleRss));
  const readyP50 = percentile(ready, 50);
  const rssMax = max(rss);
  const worst = production.reduce((a, b) => (b.rss > a.rss ? b : a));
  const prodMax = mb(worst.rss);
  const heap = probed?.heap;
  const probedMemory = probed?.memory;
  const breakdown: BenchRow[] =
    heap !== undefined && probedMemory !== undefined
      ? [
          { measure: 'production, a start with a heap probe: idle RSS', value: mb(probedMemory.rss), unit: 'MiB' },
          { measure: '  V8 heap committed (JS objects, compiled code)', value: mb(heap.committed), unit: 'MiB' },
          { measure: '    of it new space (young generation)', value: mb(heap.newSpace), unit: 'MiB' },
          { measure: '    of it old space', value: mb(heap.oldSpace), unit: 'MiB' },
          { measure: '    of it code, trusted and read-only spaces', value: mb(heap.codeAndTrusted), unit: 'MiB' },
          { measure: '    of it large objects', value: mb(heap.largeObjects), unit: 'MiB' },
          {
            measure: '  other anonymous memory (malloc: OpenSSL, SQLite, libuv, V8 outside its heap; stacks)',
            value: mb(probedMemory.anon - heap.committed),
            unit: 'MiB',
          },
          { measure: '  JS heap used', value: mb(heap.used), unit: 'MiB' },
          { measure: '  external (Buffers, native objects V8 is told of)', value: mb(heap.external), unit: 'MiB' },
        ]
      : [];
  return {
    name: 'cold-start',
    params: {
      count,
      idleMs,
      nodeFlags: PRODUCTION_NODE_FLAGS.join(' '),
      nodeEnv: Object.entries(PRODUCTION_NODE_ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    },
    rows: [
      {
        measure: 'spawn -> CLI modules loaded (nothing started), median',
        value: percentile(
          loads.map((l) => l.ms),
          50,
        ),
        unit: 'ms',
      },
      {
        measure: 'spawn -> counter page URL printed, median',
        value: percentile(
          samples.map((s) => s.listening),
          50,
        ),
        unit: 'ms',
      },
      {
        measure: 'spawn -> /readyz 200, median',
        value: readyP50,
        unit: 'ms',
        target: '< 1000 ms',
        met: readyP50 < 1_000,
      },
      { measure: 'spawn -> /readyz 200, worst', value: max(ready), unit: 'ms' },
      {
        measure: `demo: idle RSS ${idleMs / 1000} s after ready, worst`,
        value: rssMax,
        unit: 'MiB',
        target: '< 80 MiB',
        met: rssMax < 80,
      },
      {
        measure: `production profile: idle RSS ${idleMs / 1000} s after the counter page, worst`,
        value: prodMax,
        unit: 'MiB',
        target: '< 60 MiB',
        met: prodMax < 60,
      },
      {
        measure: '  PSS of that start (shared pages counted by share; a terminal runs one node)',
        value: mb(worst.pss),
        unit: 'MiB',
      },
      { measure: '  pages mapped from files', value: mb(worst.file), unit: 'MiB' },
      {
        measure: "    of them the node executable (V8, OpenSSL, ICU data, node's JavaScript)",
        value: mb(worst.nodeBinary),
        unit: 'MiB',
      },
      { measure: '    of them shared libraries and native addons', value: mb(worst.otherFiles), unit: 'MiB' },
      { measure: '  anonymous memory (V8 heap, malloc, stacks)', value: mb(worst.anon), unit: 'MiB' },
      ...breakdown,
      ...(unset !== undefined
        ? [
            {
              measure: 'production profile without the node flags and environment: idle RSS',
              value: mb(unset.rss),
              unit: 'MiB',
            },
          ]
        : []),
      { measure: 'node alone (empty script), RSS', value: mb(nodeEmpty), unit: 'MiB' },
      {
        measure: `node with what a terminal cannot do without loaded (${RUNTIME_FLOOR.map((m) => m.replace(/^undici\/lib\/.*\//, 'undici/')).join(', ')}), RSS`,
        value: mb(nodeRuntime),
        unit: 'MiB',
      },
      {
        measure: 'RSS with the CLI modules loaded, nothing started',
        value: percentile(
          loads.map((l) => mb(l.rss)),
          50,
        ),
        unit: 'MiB',
      },
      { measure: 'peak RSS (VmHWM), worst', value: max(samples.map((s) => mb(s.peakRss))), unit: 'MiB' },
    ],
    notes: [
      'demo starts: fresh data dir, embedded demo platform, simulated peripherals, logs at info to a pipe; dev certificates made beforehand (not timed)',
      'production profile: environment eu, the platform at an https loopback port nobody listens on, reader, display and scanner on serial paths that do not exist (the supervisors wait for them), no embedded demo; it never loads the demo platform or the simulated devices (test/structure/production-modules.test.ts)',
      'ready = token held, platform reachable, reader connected (/readyz)',
      `every start and the runtime figures run with production's node flags and environment (${PRODUCTION_NODE_FLAGS.join(' ')} ${Object.entries(
        PRODUCTION_NODE_ENV,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}: the launcher, the systemd unit and npm start), except the one row that says otherwise`,
      'RSS counts every resident page, also those shared with other processes (the node executable, libraries); PSS is shown beside it, labelled',
      ...(uncleanExits.length > 0 ? [`the agent did not stop cleanly on SIGTERM: ${uncleanExits.join(', ')}`] : []),
    ],
  };
}

/** Found by scripts/bench/run.ts. */
export const bench: BenchDefinition = {
  order: 5,
  quickCount: 3,
  run: (o) => benchColdStart({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('idleMs', o.idleMs) }),
};
