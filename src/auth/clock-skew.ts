import type { Logger } from '../core/index.js';
import type { ResponseTiming } from './token-response.js';

/**
 * How far the platform's two readings of its own time (a token answer's `Date` header and
 * the token's `iat`) may differ before the agent says so: both are whole seconds written
 * moments apart, so more than a minute means one of the platform's clocks is wrong.
 */
export const READINGS_DISAGREE_MS = 60_000;

/** Platform clock minus ours, as last measured; positive = the platform is ahead. */
export interface ClockSkew {
  /** From the HTTP Date header (1 s resolution, plus transit time). */
  dateHeaderMs: number | undefined;
  /** From the token's iat (1 s resolution, plus issue and transit time). */
  iatMs: number | undefined;
  measuredAt: string;
  /** Either measure exceeds the JWT leeway: our clock needs fixing (NTP). */
  exceedsLeeway: boolean;
}

/**
 * Keeps the latest skew measurement. The agent never trusts its own clock for token
 * expiry (a monotonic clock from receipt does that); skew is measured so diagnostics can
 * say when the terminal's wall clock is wrong, and so the event relay judges a QR's expiry
 * on the platform's clock (platformNow).
 */
export class ClockSkewMeter {
  private last: ClockSkew | undefined;
  /** The platform's time as last read (Date header or iat: the later, or the earlier when they disagree) and our monotonic clock then. */
  private anchor: { platformMs: number; mono: number } | undefined;

  /** The readings disagree now (warned once until they agree again). */
  private disagreeing = false;

  /** `log`: where the disagreement of the platform's two readings is warned about. */
  constructor(
    private readonly leewayMs: number,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {}

  record(timing: ResponseTiming, iatSeconds: number | undefined): ClockSkew {
    const dateHeaderMs = timing.dateMs === undefined ? undefined : timing.dateMs - timing.receivedAtMs;
    const iatMs = iatSeconds === undefined ? undefined : iatSeconds * 1000 - timing.receivedAtMs;
    // Both measures lag by up to a second of truncation: allow for it before flagging.
    const over = (v: number | undefined): boolean => v !== undefined && Math.abs(v) > this.leewayMs + 1_000;
    this.last = {
      dateHeaderMs: dateHeaderMs === undefined ? undefined : Math.round(dateHeaderMs),
      iatMs: iatMs === undefined ? undefined : Math.round(iatMs),
      measuredAt: new Date(timing.receivedAtMs).toISOString(),
      exceedsLeeway: over(dateHeaderMs) || over(iatMs),
    };
    const readings = [timing.dateMs, iatSeconds === undefined ? undefined : iatSeconds * 1000].filter(
      (v): v is number => v !== undefined && Number.isFinite(v),
    );
    const disagree =
      readings.length === 2 && Math.abs((readings[0] as number) - (readings[1] as number)) > READINGS_DISAGREE_MS;
    if (disagree && !this.disagreeing) {
      this.log?.warn(
        {
          platformDate: new Date(readings[0] as number).toISOString(),
          tokenIssuedAt: new Date(readings[1] as number).toISOString(),
          differenceMs: (readings[1] as number) - (readings[0] as number),
        },
        "the platform's clock (Date header) and the token's iat disagree by more than a minute: a QR's expiry is judged on the earlier; ask the platform operator to check their clocks",
      );
    }
    this.disagreeing = disagree;
    // Agreeing readings are both lower bounds of the platform's time: the later is the closer.
    // Disagreeing ones cannot both be right: the earlier, so that a QR's expiry judged on it
    // never comes before the platform's (docs/payments.md, "Event relay").
    if (readings.length > 0)
      this.anchor = { platformMs: disagree ? Math.min(...readings) : Math.max(...readings), mono: timing.receivedMono };
    return this.last;
  }

  /**
   * The platform's time now, as far as it is known: its last reading plus the monotonic time
   * since, so a terminal wall clock that is wrong or jumps later does not move it. Never after
   * the platform's real time: both readings are whole seconds written before the answer left
   * (docs/platform-contract.md, "Decisions where the spec is silent", QR expiry rounding).
   * Undefined before any token answer carried a Date header or an iat.
   */
  platformNow(mono: number): number | undefined {
    return this.anchor === undefined ? undefined : this.anchor.platformMs + Math.max(0, mono - this.anchor.mono);
  }

  current(): ClockSkew | undefined {
    return this.last;
  }
}
