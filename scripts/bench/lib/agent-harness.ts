import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../../src/agent.js';
import { loadConfig, type PlatformEndpoints } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import type { Logger } from '../../../src/core/index.js';
import { repoRoot } from '../../lib/repo.js';
import { benchLogger } from './bench-logger.js';
import { benchCerts, tempDir } from './certs.js';
import type { CommonBenchOptions } from './types.js';

export interface BenchAgentOptions extends CommonBenchOptions {
  /** Demo platform settings (embedded platform only). */
  walletPayDelayMs?: number;
  /** A demo platform running elsewhere (another process) instead of the embedded one. */
  platform?: PlatformEndpoints;
}

export interface BenchAgent {
  agent: RunningAgent;
  config: Config;
  log: Logger;
  repoDir: string;
  certsDir: string;
  stop(): Promise<void>;
}

/**
 * The whole agent in this process as the full-run test starts it: loopback, port 0
 * everywhere, a temp data dir, the dev certificates, simulated peripherals; the embedded
 * demo platform unless `platform` points at one in another process.
 */
export async function startBenchAgent(opts: BenchAgentOptions = {}): Promise<BenchAgent> {
  const repoDir = opts.repoDir ?? repoRoot();
  const certs = benchCerts(opts.certsDir);
  const data = tempDir('terminal-agent-bench-data-');
  const { log, close } = benchLogger();
  const external = opts.platform;
  const { config } = loadConfig({
    cwd: repoDir,
    env: {},
    flags: {
      dataDir: data.dir,
      identity: { certFile: certs.paths.deviceCert, keyFile: certs.paths.deviceKey, caFile: certs.paths.caCert },
      api: { port: 0 },
      // The demo terminal serves two merchants; naming the default one keeps the start-up quiet.
      auth: { merchantId: 'terminal-app-1001' },
      // The demo platform's ledger file (one fsync per request) is the platform's cost, not the agent's: off, as the floor has none.
      sim: {
        apiPort: 0,
        mtlsPort: 0,
        walletPayDelayMs: opts.walletPayDelayMs ?? 0,
        embedded: external === undefined,
        persistLedger: false,
      },
      ...(external !== undefined
        ? { platform: { baseUrl: external.baseUrl, authUrl: external.authUrl, deviceAuthUrl: external.deviceAuthUrl } }
        : {}),
    },
  });
  let agent: RunningAgent;
  try {
    agent = await startAgent({ config, log, environmentsFile: join(repoDir, 'config', 'environments.json') });
    await agent.settled;
    if (agent.auth.status().state !== 'ready')
      throw new Error(`the agent holds no device token (auth ${agent.auth.status().state})`);
  } catch (err) {
    close();
    data.cleanup();
    certs.cleanup();
    throw err;
  }
  return {
    agent,
    config,
    log,
    repoDir,
    certsDir: certs.paths.dir,
    async stop() {
      await agent.stop();
      close();
      data.cleanup();
      certs.cleanup();
    },
  };
}
