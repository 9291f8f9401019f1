import { backoffDelay, type BackoffOptions, type Logger } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import type { CallOptions } from '../platform/index.js';
import type { PlatformState } from './types.js';

/** The platform's availability check (the PlatformClient's isAvailable). */
export interface AvailabilityProbe {
  isAvailable(opts?: CallOptions): Promise<boolean>;
}

/** The agent's one view of the platform (src/platform/availability-watch.ts PlatformWatch). */
export interface SharedReach {
  readonly state: PlatformState;
}

/**
 * Whether the platform can be reached, as the uploader last saw it, and how long to wait
 * before asking again: full-jitter backoff from `backoff.baseMs` to `backoff.capMs` over
 * the failed tries in a row, never shorter than the platform's last Retry-After
 * (docs/offline.md, "Offline queue"). Every change is logged and published as
 * `platform.status`. With a SharedReach (the agent's PlatformWatch) the state is the watch's
 * and only the watch publishes, so the badge, /readyz and the uploader never disagree
 * (docs/counter-page.md, "Local API and counter page").
 */
export class PlatformAvailability {
  private current: PlatformState = 'unknown';
  private failures = 0;
  /** Retry-After of the platform's last refusal-for-now (429/503), a floor for the next wait. */
  private retryAfterMs: number | undefined;

  constructor(
    private readonly probe: AvailabilityProbe,
    private readonly backoff: BackoffOptions,
    private readonly bus: EventBus,
    private readonly log: Logger,
    /** Called on every change of the state (levels). */
    private readonly onChange: () => void,
    private readonly shared?: SharedReach,
  ) {}

  get state(): PlatformState {
    return this.shared?.state ?? this.current;
  }

  /** Asks the platform's isAvailable and records the answer. */
  async check(signal: AbortSignal): Promise<boolean> {
    const ok = await this.probe.isAvailable({ signal });
    // The shared watch heard the answer from the client itself.
    if (this.shared === undefined)
      this.set(ok ? 'online' : 'offline', ok ? undefined : 'isAvailable did not answer 200');
    return ok;
  }

  set(state: 'online' | 'offline', reason?: string): void {
    // The shared watch was told by the platform client of the very call that failed, in a clerk's words.
    if (this.shared !== undefined) return;
    if (this.current === state) return;
    this.current = state;
    this.log.info(
      { platform: state, reason },
      state === 'online' ? 'platform reachable: uploading offline sales' : 'platform not reachable',
    );
    this.bus.publish('platform.status', { online: state === 'online', ...(reason !== undefined ? { reason } : {}) });
    this.onChange();
  }

  /** The platform asked to wait at least this long (Retry-After) before the next try. */
  retryAfter(ms: number): void {
    this.retryAfterMs = ms;
  }

  /** The wait after one more failed try in a row. */
  nextBackoff(): number {
    const wait = backoffDelay(this.failures++, this.backoff, this.retryAfterMs);
    this.retryAfterMs = undefined;
    return wait;
  }

  /** A round went through: the next failure waits the shortest time again. */
  succeeded(): void {
    this.failures = 0;
  }
}
