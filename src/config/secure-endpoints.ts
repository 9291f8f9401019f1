import { bundledFile } from './bundled.js';
import { ENVIRONMENTS_FILE, resolveEndpoints, type PlatformEndpoints } from './load.js';
import type { Config } from './schema.js';
import { checkEndpoints } from './transport-check.js';

/**
 * The platform hosts (resolveEndpoints), refused unless every one is https:// without
 * credentials: whether it came from platform.* or from the environments file.
 */
export function resolveSecureEndpoints(
  config: Config,
  environmentsFile = bundledFile(ENVIRONMENTS_FILE),
): PlatformEndpoints {
  const endpoints = resolveEndpoints(config, environmentsFile);
  checkEndpoints(endpoints, (key) =>
    config.platform[key] !== undefined ? `platform.${key}` : `${environmentsFile}: ${config.environment}.${key}`,
  );
  return endpoints;
}
