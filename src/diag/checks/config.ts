import { describeError } from '../../core/index.js';
import { diagEndpoints } from '../platform-access.js';
import type { DiagOptions, DiagState } from '../state.js';
import type { Outcome } from '../types.js';

/** Check 1: the configuration loads, and the platform endpoints follow from it. */
export function checkConfig(state: DiagState, load: DiagOptions['loadConfig']): Outcome {
  try {
    state.loaded = load();
    state.config = state.loaded.config;
  } catch (err) {
    state.configError = describeError(err);
    return {
      status: 'fail',
      finding: state.configError,
      remedy:
        'fix the configuration file or TERMINAL_AGENT_* variable named above (`terminal-agent config show` prints the effective configuration)',
    };
  }
  const config = state.config;
  state.embeddedDemo = config.environment === 'local' && config.sim.embedded;
  try {
    state.endpoints = diagEndpoints(config, state.environmentsFile);
  } catch (err) {
    state.endpointsError = describeError(err);
    return {
      status: 'fail',
      finding: `configuration loads, but the platform endpoints do not: ${state.endpointsError}`,
      remedy: 'set platform.baseUrl, platform.authUrl and platform.deviceAuthUrl, or fix config/environments.json',
    };
  }
  const from =
    state.loaded.file !== undefined
      ? `${state.loaded.file} (${state.loaded.reason})`
      : `defaults (${state.loaded.reason})`;
  return {
    status: 'ok',
    finding: `loaded ${from}; environment ${config.environment}${state.embeddedDemo ? ' (embedded demo platform)' : ''}; platform ${state.endpoints.baseUrl}`,
    facts: {
      file: state.loaded.file ?? null,
      fileSource: state.loaded.source,
      environment: config.environment,
      embeddedDemo: state.embeddedDemo,
      endpoints: state.endpoints,
      dataDir: config.dataDir,
    },
  };
}
