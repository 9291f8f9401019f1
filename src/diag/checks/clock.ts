import { ClockSkewMeter } from '../../auth/index.js';
import { httpRequest } from '../../platform/index.js';
import { dispatchersOf, platformFailure, safeHost } from '../platform-access.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';

/**
 * Check 3: the platform's HTTP Date against our clock. The Date header has whole seconds,
 * so ClockSkewMeter allows a second beyond the auth leeway before it flags the skew.
 */
export async function checkClock(state: DiagState, signal: AbortSignal): Promise<Outcome> {
  const { config, endpoints } = state;
  if (config === undefined || endpoints === undefined)
    return { status: 'skip', finding: 'needs the configuration (see config)' };
  const dispatchers = dispatchersOf(state);
  if (dispatchers === undefined) return { status: 'skip', finding: 'needs the device certificate (see certificate)' };
  const url = `${endpoints.baseUrl}/payment/v1/transactions/technical/isAvailable`;
  let res;
  try {
    // No token: any answer carries the Date header, and a 401 is expected here.
    res = await httpRequest(
      {
        operation: 'clock',
        method: 'GET',
        url,
        dispatcher: dispatchers.for(url),
        headers: { accept: 'application/json' },
        signal,
      },
      { mono: () => performance.now(), wall: state.now },
    );
  } catch (err) {
    return platformFailure(state, err, url);
  }
  const host = safeHost(url);
  if (res.dateMs === undefined) {
    return {
      status: 'warn',
      finding: `${host} sent no Date header: clock skew not measured`,
      remedy: "check the terminal's clock against a trusted time source (NTP)",
      facts: { host },
    };
  }
  const leewayMs = config.auth.leewaySeconds * 1000;
  const skew = new ClockSkewMeter(leewayMs).record(
    { dateMs: res.dateMs, receivedAtMs: res.receivedAtMs, receivedMono: res.receivedMono },
    undefined,
  );
  const skewMs = skew.dateHeaderMs ?? 0;
  const seconds = (skewMs / 1000).toFixed(1);
  const direction = skewMs >= 0 ? 'behind' : 'ahead of';
  const facts = {
    host,
    platformDate: new Date(res.dateMs).toISOString(),
    localTime: new Date(res.receivedAtMs).toISOString(),
    skewMs,
    leewaySeconds: config.auth.leewaySeconds,
  };
  if (skew.exceedsLeeway) {
    return {
      status: 'fail',
      finding: `local clock is ${Math.abs(Number(seconds))} s ${direction} the platform (${host}), beyond the ${config.auth.leewaySeconds} s leeway`,
      remedy: "set the terminal's clock: enable NTP (`timedatectl set-ntp true`) or set the time by hand",
      facts,
    };
  }
  return { status: 'ok', finding: `skew ${seconds} s against ${host} (leeway ${config.auth.leewaySeconds} s)`, facts };
}
