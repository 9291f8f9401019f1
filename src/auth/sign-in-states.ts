import { randomBytes } from 'node:crypto';
import type { TimeSource } from '../core/index.js';

/** At most this many sign-ins wait at once; the oldest is dropped first (a page reloaded many times). */
const MAX_PENDING = 16;

export interface PendingSignIn {
  /** The redirect URI the authorization request named: the code exchange must repeat it. */
  redirectUri: string;
}

export type StateTake = { ok: true; pending: PendingSignIn } | { ok: false; reason: 'missing' | 'unknown' | 'expired' };

/**
 * The `state` values of the sign-ins this agent started (the spec: the state of the
 * authorization request must be compared with the callback's). Each is 32 random bytes,
 * kept in memory only, valid for `ttlMs` on the monotonic clock, and taken once: a callback
 * that names it ends it, whatever happens next, so a replayed callback finds nothing
 * (docs/platform-contract.md, "Tokens", custom-token flow).
 */
export class SignInStates {
  private readonly pending = new Map<string, PendingSignIn & { expiresMono: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: TimeSource,
  ) {}

  create(redirectUri: string): string {
    this.sweep();
    while (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest === undefined) break;
      this.pending.delete(oldest);
    }
    const state = randomBytes(32).toString('base64url');
    this.pending.set(state, { redirectUri, expiresMono: this.clock.mono() + this.ttlMs });
    return state;
  }

  /** Consumes `state`: unknown (never issued, or already used), expired, or the sign-in it belongs to. */
  take(state: string | undefined): StateTake {
    if (state === undefined || state === '') return { ok: false, reason: 'missing' };
    const entry = this.pending.get(state);
    if (entry === undefined) return { ok: false, reason: 'unknown' };
    this.pending.delete(state);
    if (this.clock.mono() >= entry.expiresMono) return { ok: false, reason: 'expired' };
    return { ok: true, pending: { redirectUri: entry.redirectUri } };
  }

  private sweep(): void {
    const now = this.clock.mono();
    for (const [s, e] of this.pending) if (now >= e.expiresMono) this.pending.delete(s);
  }
}
