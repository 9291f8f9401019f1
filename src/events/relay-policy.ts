import { backoffDelay, type BackoffOptions } from '../core/index.js';

/**
 * When the provider relay asks the platform for a pending transaction's status next.
 * Quality target (README.md, "Quality targets", `relay`): a status change reaches the
 * page within 1 s (p95) while the QR is shown, with at most 2 status calls per second per
 * pending transaction.
 */
export interface RelayPolicy {
  /** Poll period while the customer is likely paying (counted from the start of a call). */
  fastIntervalMs: number;
  /** How long after tracking starts the fast period lasts. */
  fastPhaseMs: number;
  /** First period after the fast phase; doubles on each poll up to maxIntervalMs. */
  slowIntervalMs: number;
  maxIntervalMs: number;
  /** Retries of a failing status call (full jitter). */
  failureBackoff: BackoffOptions;
}

export const defaultRelayPolicy: RelayPolicy = {
  fastIntervalMs: 500,
  fastPhaseMs: 60_000,
  slowIntervalMs: 1_000,
  maxIntervalMs: 10_000,
  failureBackoff: { baseMs: 1_000, capMs: 30_000 },
};

export interface PollState {
  /** Milliseconds since tracking started in this run. */
  trackedForMs: number;
  /** Successful polls since the fast phase ended. */
  slowPolls: number;
  /** Consecutive failed status calls. */
  failures: number;
  /** Milliseconds until the QR expires (negative once expired); undefined when unknown. */
  msToExpiry: number | undefined;
  /** How long the last call took; the next one starts at least one period after the last started. */
  lastCallMs: number;
}

/** Delay before the next status call, never below 0. */
export function nextPollDelay(policy: RelayPolicy, s: PollState, random?: () => number): number {
  let delay: number;
  if (s.failures > 0) {
    delay = backoffDelay(s.failures - 1, random ? { ...policy.failureBackoff, random } : policy.failureBackoff);
    // Never busier than the fast period, even with an unlucky jitter draw.
    delay = Math.max(delay, policy.fastIntervalMs);
  } else if (s.trackedForMs < policy.fastPhaseMs) {
    delay = policy.fastIntervalMs - s.lastCallMs;
  } else {
    delay = Math.min(policy.maxIntervalMs, policy.slowIntervalMs * 2 ** Math.min(s.slowPolls, 20)) - s.lastCallMs;
  }
  // One last look exactly when the QR expires: paid at the last second or expired.
  if (s.msToExpiry !== undefined && s.msToExpiry > 0) delay = Math.min(delay, s.msToExpiry);
  return Math.max(0, Math.round(delay));
}

/**
 * The QR expiry as epoch milliseconds. The platform gives ISO 8601 or, for server-produced
 * times, MM/DD/YYYY HH:mm:ss (docs/platform-contract.md, "Tolerance of answers"),
 * read as UTC.
 */
export function parseExpireTime(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const us = /^(\d{2})\/(\d{2})\/(\d{4})[ T](\d{1,2}):(\d{2}):(\d{2})(?:\s*([AaPp][Mm]))?$/.exec(text.trim());
  if (us) {
    const [, mm, dd, yyyy, hh, mi, ss, ampm] = us;
    let hour = Number(hh);
    if (ampm !== undefined) hour = (hour % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0);
    return Date.UTC(Number(yyyy), Number(mm) - 1, Number(dd), hour, Number(mi), Number(ss));
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}
