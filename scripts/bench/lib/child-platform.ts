import { spawn, type ChildProcess } from 'node:child_process';
import type { PlatformEndpoints } from '../../../src/config/load.js';
import { builtCli, cleanEnv } from '../../lib/repo.js';

export interface ChildPlatform {
  endpoints: PlatformEndpoints;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The demo platform in its own process (`terminal-agent sim`, port 0, the given dev PKI),
 * so that a bench measuring the agent's memory does not count the platform's ledger.
 */
export function startChildPlatform(repoDir: string, certsDir: string, timeoutMs = 20_000): Promise<ChildPlatform> {
  const bin = builtCli(repoDir);
  const env = {
    ...cleanEnv(),
    TERMINAL_AGENT_SIM__API_PORT: '0',
    TERMINAL_AGENT_SIM__MTLS_PORT: '0',
    TERMINAL_AGENT_SIM__WALLET_PAY_DELAY_MS: '0',
    TERMINAL_AGENT_LOG__LEVEL: 'warn',
    TERMINAL_AGENT_LOG__PRETTY: 'false',
  };
  const child: ChildProcess = spawn(process.execPath, [bin, 'sim', '--certs', certsDir], {
    cwd: repoDir,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the demo platform did not say where it listens within ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      // "demo platform (standard profile): api URL  device auth URL" (the profile in brackets since the strict profile came).
      const m = /demo platform(?: \([^)]*\))?: api (https:\/\/\S+)\s+device auth (https:\/\/\S+)/.exec(seen);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      const api = m[1] as string;
      resolve({
        endpoints: { baseUrl: api, authUrl: api, deviceAuthUrl: m[2] as string },
        pid: child.pid as number,
        stop,
      });
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo platform exited (${code}) before it listened`));
    });
  });
}
