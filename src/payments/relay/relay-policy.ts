import { backoffDelay, type BackoffOptions } from '../../core/index.js';
import { serverTimeEnd } from '../../events/index.js';

/**
 * When the provider relay asks the platform for a pending transaction's status next.
 * Quality target (docs/performance.md, "Quality targets", `relay`): a status change reaches the
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
 * The QR expiry as epoch milliseconds: the end of the time the platform's `expireTime`
 * names, read in the platform's time zone when it carries no offset (server date forms
 * `MM/DD/YYYY HH:mm:ss` and `M/D/YYYY h:mm:ss AM/PM`, or ISO 8601), rounded up to the end
 * of the second it names so the relay never gives up before the platform does
 * (docs/platform-contract.md, "Tolerance of answers", dates and time zone).
 */
export function parseExpireTime(text: string | undefined, timeZone: string): number | undefined {
  return serverTimeEnd(text, timeZone);
}
