import { backoffDelay } from '../core/index.js';

export interface ReversalDelaySettings {
  /** First wait (ms), doubled per attempt. */
  baseMs: number;
  /** `payments.reversalRetryCapMs`: the longest wait once nobody waits at the counter (background). */
  backgroundCapMs: number;
  /** `payments.reversalWaitingRetryCapMs`: the longest wait while the clerk waits. */
  waitingCapMs: number;
  /** `payments.reversalWaitingMs`: how long after the reversal started a clerk is taken to wait at the counter. */
  waitingMs: number;
  /** Jitter source: a number in [0, 1). */
  random: () => number;
}

/**
 * The wait before the next reversal attempt (docs/payments.md, "Unknown outcome:
 * resolution and reversal"): full-jitter backoff, capped at seconds while a clerk waits in
 * front of "do not hand over the goods" (a platform back after 30 s must not leave them
 * waiting another 80), and at the background cap after that, so a long outage is not
 * hammered.
 */
export function reversalDelay(attempt: number, sinceStartMs: number, s: ReversalDelaySettings): number {
  const capMs = sinceStartMs < s.waitingMs ? Math.min(s.waitingCapMs, s.backgroundCapMs) : s.backgroundCapMs;
  // A base above the cap needs no clamp: backoffDelay caps every wait, the first included.
  return backoffDelay(attempt, { baseMs: s.baseMs, capMs, random: s.random });
}
