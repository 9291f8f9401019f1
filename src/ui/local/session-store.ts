import { randomBytes } from 'node:crypto';
import type { TimeSource } from '../../core/index.js';
import type { StaffView } from '../shared/index.js';

export interface Session {
  /** Opaque, 32 random bytes (base64url): only the cookie carries it. */
  readonly id: string;
  readonly staff: StaffView;
  /** Monotonic milliseconds (docs/architecture.md, "Time"). */
  readonly createdMono: number;
  lastSeenMono: number;
}

export interface SessionLimits {
  /** api.sessionIdleMinutes in milliseconds. */
  idleMs: number;
  /** api.sessionMaxHours in milliseconds. */
  maxMs: number;
}

/**
 * The counter page's staff sessions (docs/counter-page.md, "Local API and counter page"), in
 * memory only: a restart signs everyone out. A session ends after `idleMs` without a
 * request, `maxMs` after sign-in however busy, or at sign-out; times are on the monotonic
 * clock so a wall-clock jump neither ends nor extends one.
 */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly onEnd = new Map<string, Set<() => void>>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly clock: TimeSource,
  ) {}

  create(staff: StaffView): Session {
    this.sweep();
    const now = this.clock.mono();
    const session: Session = { id: randomBytes(32).toString('base64url'), staff, createdMono: now, lastSeenMono: now };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session of `id`, its idle time restarted; undefined (and ended) when it timed out. */
  touch(id: string): Session | undefined {
    const s = this.sessions.get(id);
    if (s === undefined) return undefined;
    if (!this.alive(s)) {
      this.end(id);
      return undefined;
    }
    s.lastSeenMono = this.clock.mono();
    return s;
  }

  /** Whether `id` is still a live session, without counting as activity (a long-lived event stream checks this). */
  isAlive(id: string): boolean {
    const s = this.sessions.get(id);
    if (s !== undefined && this.alive(s)) return true;
    if (s !== undefined) this.end(id);
    return false;
  }

  /** Calls `fn` once when the session ends (sign-out or timeout seen); returns a function that forgets it. */
  whenEnded(id: string, fn: () => void): () => void {
    let set = this.onEnd.get(id);
    if (set === undefined) {
      set = new Set();
      this.onEnd.set(id, set);
    }
    set.add(fn);
    return () => set.delete(fn);
  }

  end(id: string): void {
    this.sessions.delete(id);
    const fns = this.onEnd.get(id);
    this.onEnd.delete(id);
    for (const fn of fns ?? []) fn();
  }

  get size(): number {
    return this.sessions.size;
  }

  private alive(s: Session): boolean {
    const now = this.clock.mono();
    return now - s.lastSeenMono < this.limits.idleMs && now - s.createdMono < this.limits.maxMs;
  }

  private sweep(): void {
    for (const s of [...this.sessions.values()]) if (!this.alive(s)) this.end(s.id);
  }
}
