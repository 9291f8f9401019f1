/** The configuration: one zod schema and its loader (defaults < file < environment < flags). */
export {
  loadConfig,
  resolveEndpoints,
  redactConfig,
  configLeaves,
  envName,
  ENV_PREFIX,
  DEFAULT_CONFIG_FILE,
  type LoadConfigOptions,
  type LoadedConfig,
  type PlatformEndpoints,
} from './load.js';
export { configSchema, environmentNames, secretConfigPaths, type Config, type EnvironmentName, type SerialPortConfig } from './schema.js';
