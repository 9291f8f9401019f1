import { backoffDelay, type BackoffOptions, type Clock, type Logger, type TimerHandle } from '../core/index.js';
import type { EventBus } from '../events/index.js';

export type PlatformReach = 'unknown' | 'online' | 'offline';

/** What the agent knows about the platform's availability (GET /api/v1/status `platform`). */
export interface PlatformReachView {
  online: boolean;
  state: PlatformReach;
  /** Why it is offline: a person's words, no host or socket detail. */
  reason?: string;
  /** Wall-clock ISO time of the last change. */
  since?: string;
}

/** What every platform call tells the watch (src/platform/client.ts). */
export interface ReachObserver {
  /** The platform answered (any HTTP status). */
  answered(): void;
  /**
   * A transport failure (refused, reset, timeout) or an isAvailable other than 200.
   * `answerLost`: the request may have reached the platform (a reset or timeout after it was
   * sent), which alone does not show the platform gone.
   */
  unreachable(reason: string, opts?: { answerLost?: boolean }): void;
}

export interface AvailabilityProbe {
  isAvailable(opts?: { signal?: AbortSignal }): Promise<boolean>;
}

export interface PlatformWatchOptions {
  bus: EventBus;
  log: Logger;
  clock: Clock;
  /** While online: ask isAvailable when no call has answered for this long. */
  intervalMs: number;
  /** While offline or unknown: full-jitter backoff between checks. */
  backoff: BackoffOptions;
}

/**
 * The one source of truth of the platform's availability (docs/counter-page.md, "Local API
 * and counter page", platform status): every platform call reports to it (any answer:
 * online; a transport failure: offline at once), and while the agent is idle it asks
 * isAvailable itself, every `intervalMs` while online and with backoff while not. Each
 * change is published once as `platform.status`; /readyz, /api/v1/status, the page's badge,
 * the offline uploader and the CLI read it from here.
 */
export class PlatformWatch implements ReachObserver {
  private current: PlatformReach = 'unknown';
  private reasonText: string | undefined;
  private sinceMs: number | undefined;
  private lastAnswerMono = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private timer: TimerHandle | undefined;
  private probe: AvailabilityProbe | undefined;
  private abort = new AbortController();
  private checking = false;

  constructor(private readonly opts: PlatformWatchOptions) {}

  get state(): PlatformReach {
    return this.current;
  }

  get online(): boolean {
    return this.current === 'online';
  }

  view(): PlatformReachView {
    return {
      online: this.online,
      state: this.current,
      ...(this.reasonText !== undefined ? { reason: this.reasonText } : {}),
      ...(this.sinceMs !== undefined ? { since: new Date(this.sinceMs).toISOString() } : {}),
    };
  }

  answered(): void {
    this.lastAnswerMono = this.opts.clock.mono();
    this.failures = 0;
    this.set('online', undefined);
  }

  unreachable(reason: string, opts?: { answerLost?: boolean }): void {
    // One lost answer while online (the agent then looks its outcome up) is checked before it
    // is believed: isAvailable at once, whose own report decides. Otherwise every sale whose
    // answer was lost flashed "platform offline" on the counter for the moment before its
    // lookup answered (docs/counter-page.md, "Local API and counter page", platform status).
    if (opts?.answerLost === true && this.current === 'online' && this.probe !== undefined) {
      if (!this.checking)
        void this.checkNow().catch((err: unknown) =>
          this.opts.log.warn({ err: String(err) }, 'platform availability check failed'),
        );
      return;
    }
    this.set('offline', reason);
    // Offline: the next check comes after the short backoff, not the idle interval.
    if (this.probe !== undefined && !this.checking) this.schedule(this.opts.backoff.baseMs);
  }

  /** Starts the idle checks (the first after the short backoff; `checkNow` asks at once). */
  start(probe: AvailabilityProbe): void {
    this.probe = probe;
    this.abort = new AbortController();
    this.schedule(this.current === 'online' ? this.opts.intervalMs : this.opts.backoff.baseMs);
  }

  /** Asks isAvailable now (start-up, a test) and returns the state after it. */
  async checkNow(): Promise<PlatformReach> {
    if (this.probe === undefined) return this.current;
    this.checking = true;
    try {
      const ok = await this.probe.isAvailable({ signal: this.abort.signal });
      if (this.abort.signal.aborted) return this.current;
      // The client reports the answer (answered/unreachable) itself; count the failures for the backoff.
      if (ok) this.failures = 0;
      else this.failures++;
    } finally {
      this.checking = false;
    }
    return this.current;
  }

  stop(): void {
    this.probe = undefined;
    this.abort.abort(new Error('platform watch stopping'));
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, ms);
  }

  private async tick(): Promise<void> {
    if (this.probe === undefined) return;
    if (this.checking) {
      this.schedule(this.opts.backoff.baseMs);
      return;
    }
    if (this.current === 'online') {
      const quietMs = this.opts.clock.mono() - this.lastAnswerMono;
      // A call answered recently: the platform is known to be there, no need to ask.
      if (quietMs < this.opts.intervalMs) {
        this.schedule(this.opts.intervalMs - quietMs);
        return;
      }
    }
    try {
      await this.checkNow();
    } catch (err) {
      this.opts.log.warn({ err: String(err) }, 'platform availability check failed');
    }
    if (this.probe === undefined) return;
    // Full jitter may draw ~0: a floor of a quarter of the base keeps a dead platform from being asked in a tight loop.
    this.schedule(
      this.current === 'online'
        ? this.opts.intervalMs
        : Math.max(this.opts.backoff.baseMs / 4, backoffDelay(Math.max(0, this.failures - 1), this.opts.backoff)),
    );
  }

  private set(state: 'online' | 'offline', reason: string | undefined): void {
    if (this.current === state && this.reasonText === reason) return;
    const changed = this.current !== state;
    this.current = state;
    this.reasonText = reason;
    if (!changed) return;
    this.sinceMs = this.opts.clock.wall();
    this.opts.log.info(
      { platform: state, reason },
      state === 'online' ? 'platform reachable' : 'platform not reachable',
    );
    this.opts.bus.publish('platform.status', {
      online: state === 'online',
      ...(reason !== undefined ? { reason } : {}),
    });
  }
}
