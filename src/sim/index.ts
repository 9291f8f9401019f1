/** The demo platform and the simulated peripherals (docs/architecture.md, "Demo platform"). */
export * from './devices/index.js';
export { startDemoPlatform, demoPlatformConfig, defaultSimSettings, type DemoPlatform, type DemoPlatformOptions } from './platform/server.js';
