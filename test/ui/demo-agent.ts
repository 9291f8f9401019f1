import { resolve } from 'node:path';
import type { LoadConfigOptions } from '../../src/config/load.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

type Section = NonNullable<LoadConfigOptions['flags']>[string];

/** Configuration sections a page test sets over the demo agent's (e.g. the merchant, the capture mode, the page's language, the outcome's time on screen). */
export interface DemoAgentOverrides {
  auth?: Section;
  /** Replaces the agent's `api` section whole: give `port: 0` with it (e.g. api.outcomeSeconds 0: an outcome stays until "New sale"). */
  api?: Section;
  payments?: Section;
  /** e.g. a short platform.connectTimeoutMs, for a platform taken away. */
  platform?: Section;
}

/**
 * The whole agent as the counter page's end-to-end tests drive it (test/helpers/test-agent.ts)
 * with the demo seed (its staff sign in on the page: DEMO_STAFF, staff.ts), wallet payments
 * only when the test says so (`walletPayDelayMs: 0`) and the simulated reader; logged at info.
 */
export function startDemoAgent(over: DemoAgentOverrides = {}): Promise<TestAgent> {
  return startTestAgent({
    level: 'info',
    flags: {
      environment: 'local',
      sim: { walletPayDelayMs: 0, seedFile: resolve('config/demo-seed.json') },
      devices: { simulate: true },
      ...over,
    },
  });
}
