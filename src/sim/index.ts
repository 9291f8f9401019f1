/**
 * The demo platform and the simulated peripherals, as the composition root and the CLI
 * use them (docs/demo-platform.md, "Demo platform"). The demo platform is an independent
 * implementation of the platform contract and shares no code with the agent's payments
 * rules, so it can catch the agent's mistakes.
 */
export {
  startDemoPlatform,
  demoPlatformConfig,
  defaultSimSettings,
  DEMO_LEDGER_FILE,
  type DemoPlatform,
  type DemoPlatformOptions,
} from './platform/server.js';
export { SIM_PROFILES, isSimProfileName, type SimProfileName } from './platform/profile.js';
export * from './devices/index.js';
