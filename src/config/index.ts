/** The configuration: one schema, its loading with precedence, and the platform hosts. */
export {
  configSchema,
  environmentNames,
  secretConfigPaths,
  type Config,
  type EnvironmentName,
  type SerialPortConfig,
} from './schema.js';
export {
  ENV_PREFIX,
  CONFIG_FILE_VARIABLE,
  SYSTEM_CONFIG_FILE,
  SYSTEM_CONFIG_VARIABLE,
  DEFAULT_CONFIG_FILE,
  DEMO_SEED_FILE,
  ENVIRONMENTS_FILE,
  configLeaves,
  envName,
  environmentHosts,
  isPlaceholderHost,
  loadConfig,
  resolveEndpoints,
  resolvePlatformTimeZone,
  redactConfig,
  type ConfigFileSource,
  type EnvironmentHosts,
  type LoadConfigOptions,
  type LoadedConfig,
  type PlatformEndpoints,
} from './load.js';
export { bundledFile, packageDir, packageVersion } from './bundled.js';
export { platformUrlProblem, checkEndpoints } from './transport-check.js';
export { resolveSecureEndpoints } from './secure-endpoints.js';
export { captureModeFor, defaultCaptureMode, type CaptureMode, type CaptureModeSetting } from './capture-mode.js';
