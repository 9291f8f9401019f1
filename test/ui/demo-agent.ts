import { join, resolve } from 'node:path';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import { configSchema } from '../../src/config/schema.js';
import { testCerts } from '../helpers/certs.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

export interface DemoAgent {
  agent: RunningAgent;
  /** Stops the agent and removes its data directory. */
  stop(): Promise<void>;
}

/** Configuration sections a page test sets over the demo agent's (e.g. the merchant, the capture mode). */
export interface DemoAgentOverrides {
  auth?: Record<string, unknown>;
  payments?: Record<string, unknown>;
}

/**
 * The whole agent as the counter page's end-to-end tests drive it: the embedded demo
 * platform with the demo seed (its staff sign in on the page: DEMO_STAFF, staff.ts), wallet
 * payments only when the test says so (`walletPayDelayMs: 0`), the simulated reader, the
 * local API on port 0 and a fresh data directory; settled before it is handed over.
 */
export async function startDemoAgent(prefix: string, over: DemoAgentOverrides = {}): Promise<DemoAgent> {
  const tmp = tempDir(prefix);
  const certs = testCerts();
  const config = configSchema.parse({
    environment: 'local',
    dataDir: join(tmp.dir, 'data'),
    identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
    api: { port: 0 },
    sim: { apiPort: 0, mtlsPort: 0, walletPayDelayMs: 0, seedFile: resolve('config/demo-seed.json') },
    devices: { simulate: true },
    ...over,
  });
  let agent: RunningAgent;
  try {
    agent = await startAgent({ config, log: testLogger('info').log });
  } catch (err) {
    tmp.cleanup();
    throw err;
  }
  await agent.settled;
  return {
    agent,
    async stop() {
      await agent.stop();
      tmp.cleanup();
    },
  };
}
