import { startAgent, type RunningAgent } from '../../src/agent.js';
import { loadConfig, type LoadConfigOptions } from '../../src/config/load.js';
import { testCerts } from './certs.js';
import { testLogger, type LogSink } from './log-sink.js';
import { tempDir } from './temp-dir.js';
import { testPlatformTimeZone, testSimProfile } from './demo-platform.js';

type Flags = NonNullable<LoadConfigOptions['flags']>;

export interface TestAgent {
  agent: RunningAgent;
  sink: LogSink;
  /** Stops the agent and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * The whole agent as `npm start` runs it (embedded demo platform, simulated peripherals,
 * local API), on port 0 everywhere, with the run's test certificates and a fresh data
 * directory. `flags` are the highest-precedence configuration layer, merged over these.
 */
export async function startTestAgent(
  opts: { flags?: Flags; level?: 'trace' | 'debug' | 'info' } = {},
): Promise<TestAgent> {
  const certs = testCerts();
  const tmp = tempDir();
  const flags = opts.flags ?? {};
  const base = {
    dataDir: tmp.dir,
    identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
    api: { port: 0 },
    log: { level: opts.level ?? 'debug' },
  };
  const sim = { apiPort: 0, mtlsPort: 0, profile: testSimProfile(), ...(flags.sim as object | undefined) };
  // Server times are read in the zone the run's demo platform writes them in.
  const platform = { timeZone: testPlatformTimeZone(), ...(flags.platform as object | undefined) };
  const { config } = loadConfig({ cwd: process.cwd(), env: {}, flags: { ...base, ...flags, sim, platform } });
  const logged = testLogger(opts.level ?? 'debug');
  let agent: RunningAgent;
  try {
    agent = await startAgent({ config, log: logged.log });
  } catch (err) {
    tmp.cleanup();
    throw err;
  }
  await agent.settled;
  return {
    agent,
    sink: logged.sink,
    async stop() {
      await agent.stop();
      tmp.cleanup();
    },
  };
}
