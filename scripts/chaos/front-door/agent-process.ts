import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The whole agent as `terminal-agent start` runs it, in a child process: the built CLI
 * (dist/src/cli/bin.js) with a configuration file pointing at an external demo platform
 * (through the unreachable switch's ports), the local API on port 0, the simulated reader,
 * display and scanner over the serial protocol, offline sales on. Its URL is read from the
 * "Counter page:" line the start command prints.
 */
export interface AgentSettings {
  bin: string;
  dataDir: string;
  configFile: string;
  certs: { certFile: string; keyFile: string; caFile: string };
  apiPort: number;
  mtlsPort: number;
  /** The platform client's timeout to response headers (and body idle). */
  clientTimeoutMs: number;
  lookupGraceMs: number;
}

export function writeAgentConfig(s: AgentSettings): void {
  const config = {
    environment: 'local',
    dataDir: s.dataDir,
    identity: s.certs,
    platform: {
      baseUrl: `https://127.0.0.1:${s.apiPort}`,
      authUrl: `https://127.0.0.1:${s.apiPort}`,
      deviceAuthUrl: `https://127.0.0.1:${s.mtlsPort}`,
      connectTimeoutMs: 1_000,
      headersTimeoutMs: s.clientTimeoutMs,
      bodyTimeoutMs: s.clientTimeoutMs,
      availabilityTimeoutMs: 1_000,
    },
    auth: { backoffBaseMs: 100, backoffCapMs: 1_000 },
    payments: { lookupGraceMs: s.lookupGraceMs, reversalRetryCapMs: 1_000, busyRetryMaxMs: 2_000 },
    offline: { enabled: true, maxAttempts: 1_000, maxCount: 10_000, maxTotal: { EUR: 100_000_000 } },
    devices: { simulate: true, cardTimeoutMs: 20_000, scanTimeoutMs: 5_000 },
    api: { port: 0 },
    log: { level: 'warn', pretty: false },
    sim: { embedded: false },
  };
  writeFileSync(s.configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
}

export interface AgentProcess {
  child: ChildProcess;
  /** Resolves with the local API's URL once the start command printed it; rejects if the agent exits first. */
  ready: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** logFile: where the agent's own output (its log lines, warn and above) is kept, for a run kept with --keep. */
export function spawnAgent(s: AgentSettings, logFile?: string): AgentProcess {
  const child = spawn(process.execPath, [s.bin, 'start', '--config', s.configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  });
  if (logFile !== undefined) {
    const out = createWriteStream(logFile, { flags: 'a' });
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
    child.on('close', () => out.end());
  }
  let tail = '';
  const keep = (d: Buffer): void => {
    tail = (tail + d.toString('utf8')).slice(-4_000);
  };
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const m = /Counter page: (http:\/\/\S+?)\/?$/.exec(line);
      if (m?.[1] !== undefined) resolve(m[1]);
      else if (line.includes('"level":50') || line.includes('"level":60')) keep(Buffer.from(`${line}\n`));
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`the agent exited (${code ?? signal}) before it was ready: ${tail.slice(-800)}`)),
    );
  });
  ready.catch(() => {});
  return { child, ready, exited, stderr: () => tail };
}

export const agentPaths = (dir: string): { dataDir: string; configFile: string } => ({
  dataDir: join(dir, 'data'),
  configFile: join(dir, 'agent.json'),
});
