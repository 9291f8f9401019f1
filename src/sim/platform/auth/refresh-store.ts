import type { Grant } from './grant.js';

interface RefreshEntry {
  grant: Grant;
  /** Platform-clock milliseconds. */
  expiresAt: number;
  used: boolean;
}

export type RefreshTake = { ok: true; grant: Grant } | { ok: false; reason: string };

const SWEEP_EVERY = 256;

/**
 * Server-side state of the refresh tokens issued: a refresh token is valid once (rotation),
 * until it expires, and until every refresh token is revoked by the control endpoint.
 */
export class RefreshStore {
  private readonly entries = new Map<string, RefreshEntry>();
  private added = 0;

  add(jti: string, grant: Grant, expiresAt: number, now: number): void {
    if (++this.added % SWEEP_EVERY === 0) this.sweep(now);
    this.entries.set(jti, { grant, expiresAt, used: false });
  }

  /** Checks without consuming (used when a later check may still refuse the request). */
  peek(jti: string, now: number): RefreshTake {
    const entry = this.entries.get(jti);
    if (entry === undefined) return { ok: false, reason: 'refresh token is unknown or revoked' };
    if (entry.used) return { ok: false, reason: 'refresh token was already used' };
    if (now >= entry.expiresAt) return { ok: false, reason: 'refresh token expired' };
    return { ok: true, grant: entry.grant };
  }

  /** Consumes the refresh token: checked and marked used in one synchronous step. */
  take(jti: string, now: number): RefreshTake {
    const result = this.peek(jti, now);
    const entry = this.entries.get(jti);
    if (result.ok && entry !== undefined) entry.used = true;
    return result;
  }

  /** Every refresh token becomes invalid; answers how many were still usable. */
  revokeAll(now: number): number {
    let live = 0;
    for (const e of this.entries.values()) if (!e.used && now < e.expiresAt) live++;
    this.entries.clear();
    return live;
  }

  /** Revokes the refresh tokens of one session (a replayed authorization code). */
  revokeSession(sessionId: string): void {
    for (const [jti, e] of this.entries) if (e.grant.sessionId === sessionId) this.entries.delete(jti);
  }

  private sweep(now: number): void {
    for (const [jti, e] of this.entries) if (now >= e.expiresAt) this.entries.delete(jti);
  }
}
