import { AgentError, ErrorCodes, type TimeSource } from '../core/index.js';

/**
 * How failed staff sign-ins are slowed down (docs/operations.md, "Staff accounts", failed
 * sign-ins). Per username the first failures cost nothing (a clerk mistypes); after that
 * every further failure makes the next attempt wait, doubling up to `maxWaitMs`. The client
 * address has a larger allowance (several clerks share one browser), with the same waits.
 */
export interface SignInThrottlePolicy {
  /** Failures of one username before the next attempt must wait. */
  freeFailuresPerUser: number;
  /** Failures from one client address (any username) before the next attempt must wait. */
  freeFailuresPerClient: number;
  /** The first wait; each further failure doubles it. */
  firstWaitMs: number;
  /** No wait is longer: the throttle never locks a clerk out for longer than this after the last failure. */
  maxWaitMs: number;
  /** A username or address with no failure for this long starts again from nothing. */
  forgetAfterMs: number;
  /** Most usernames and addresses remembered at once (the oldest are forgotten first), so guessing names cannot fill memory. */
  maxEntries: number;
}

export const DEFAULT_SIGN_IN_THROTTLE: SignInThrottlePolicy = {
  freeFailuresPerUser: 5,
  freeFailuresPerClient: 20,
  firstWaitMs: 5_000,
  maxWaitMs: 300_000,
  forgetAfterMs: 900_000,
  maxEntries: 1_000,
};

interface Failures {
  count: number;
  /** Monotonic time of the last failure (or of the attempt that may become one). */
  lastAt: number;
}

/** One sign-in attempt the throttle let through: the caller reports how it ended, exactly once. */
export interface SignInAttempt {
  /** Right username and password: both counters start again from nothing. */
  succeeded(): void;
  /** Wrong username or password: the failure stays counted. */
  failed(): void;
  /** Ended for another reason (the platform refused the terminal, a network error): not counted. */
  abandoned(): void;
}

/**
 * Counts failed sign-ins per username and per client address, in memory (a restart needs
 * access to the terminal itself). An attempt is counted as a failure when it begins and
 * taken back when it succeeds or ends for a reason that is not the password, so parallel
 * guesses cannot slip past the count. An attempt refused because of a wait is not counted
 * and does not extend the wait, so the longest a clerk can be kept out is `maxWaitMs` after
 * the last real attempt, and a success resets everything.
 */
export class SignInThrottle {
  private readonly policy: SignInThrottlePolicy;
  private readonly entries = new Map<string, Failures>();

  constructor(
    private readonly clock: Pick<TimeSource, 'mono'>,
    policy: Partial<SignInThrottlePolicy> = {},
  ) {
    this.policy = { ...DEFAULT_SIGN_IN_THROTTLE, ...policy };
  }

  /**
   * Lets an attempt through or throws API_SIGN_IN_THROTTLED with the seconds to wait.
   * `client` is the caller's address (undefined: counted per username only).
   */
  begin(username: string, client: string | undefined): SignInAttempt {
    const now = this.clock.mono();
    const keys: Array<{ key: string; free: number }> = [
      { key: `user:${username.trim().toLowerCase()}`, free: this.policy.freeFailuresPerUser },
    ];
    if (client !== undefined && client !== '')
      keys.push({ key: `client:${client}`, free: this.policy.freeFailuresPerClient });
    let waitMs = 0;
    for (const { key, free } of keys) waitMs = Math.max(waitMs, this.remaining(key, free, now));
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw new AgentError(ErrorCodes.API_SIGN_IN_THROTTLED, `too many failed sign-ins, try again in ${seconds} s`, {
        details: { retryAfterSeconds: seconds },
      });
    }
    for (const { key } of keys) this.count(key, now);
    let done = false;
    const end = (action: (key: string) => void): void => {
      if (done) return;
      done = true;
      for (const { key } of keys) action(key);
    };
    return {
      succeeded: () => end((key) => this.entries.delete(key)),
      failed: () => end(() => undefined),
      abandoned: () =>
        end((key) => {
          const e = this.entries.get(key);
          if (e === undefined) return;
          e.count -= 1;
          if (e.count <= 0) this.entries.delete(key);
        }),
    };
  }

  /** Milliseconds until `key` may try again (0: now). */
  private remaining(key: string, free: number, now: number): number {
    const e = this.entries.get(key);
    if (e === undefined) return 0;
    if (now - e.lastAt >= this.policy.forgetAfterMs) {
      this.entries.delete(key);
      return 0;
    }
    if (e.count < free) return 0;
    const wait = Math.min(this.policy.firstWaitMs * 2 ** Math.min(e.count - free, 30), this.policy.maxWaitMs);
    return Math.max(0, e.lastAt + wait - now);
  }

  private count(key: string, now: number): void {
    const e = this.entries.get(key);
    const fresh = e === undefined || now - e.lastAt >= this.policy.forgetAfterMs;
    const next: Failures = { count: fresh ? 1 : e.count + 1, lastAt: now };
    // Re-inserted so the map's order is least recently failed first.
    this.entries.delete(key);
    this.entries.set(key, next);
    while (this.entries.size > this.policy.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
