import { PlatformClient } from '../../platform/index.js';
import { dispatchersOf } from '../platform-access.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';

/** Check 6: the platform's isAvailable with the token of check 5 (200 = available, 2 s budget: docs/platform-contract.md, "Endpoints"). */
export async function checkPlatform(state: DiagState, signal: AbortSignal): Promise<Outcome> {
  const { config, endpoints } = state;
  if (config === undefined || endpoints === undefined)
    return { status: 'skip', finding: 'needs the configuration (see config)' };
  const dispatchers = dispatchersOf(state);
  if (dispatchers === undefined) return { status: 'skip', finding: 'needs the device certificate (see certificate)' };
  if (state.unreachable !== undefined) {
    state.platformAvailable = false;
    return { status: 'fail', finding: state.unreachable.finding, remedy: state.unreachable.remedy };
  }
  const token = state.token;
  if (token === undefined) {
    return {
      status: 'fail',
      finding: 'isAvailable not asked: no device token (see token)',
      remedy: 'fix the token check first',
    };
  }
  const client = new PlatformClient({
    baseUrl: endpoints.baseUrl,
    dispatchers,
    tokens: { tokenFor: () => Promise.resolve(token.value), invalidate: () => {} },
    log: state.log,
    availabilityTimeoutMs: Math.min(config.platform.availabilityTimeoutMs, state.checkTimeoutMs),
  });
  const started = performance.now();
  const available = await client.isAvailable({ signal });
  const ms = Math.round(performance.now() - started);
  state.platformAvailable = available;
  const host = new URL(endpoints.baseUrl).host;
  if (!available) {
    return {
      status: 'fail',
      finding: `${host} did not answer isAvailable with 200 within ${config.platform.availabilityTimeoutMs} ms`,
      remedy: 'the platform is down or slow: sales go offline (when allowed) until it answers; try again later',
      facts: { host, available, ms },
    };
  }
  return { status: 'ok', finding: `${host} is available (${ms} ms)`, facts: { host, available, ms } };
}
