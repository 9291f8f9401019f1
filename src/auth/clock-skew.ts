import type { ResponseTiming } from './token-response.js';

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
  /** The platform's time as last read (Date header or iat, the later) and our monotonic clock then. */
  private anchor: { platformMs: number; mono: number } | undefined;

  constructor(private readonly leewayMs: number) {}

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
    const readings = [timing.dateMs, iatSeconds === undefined ? undefined : iatSeconds * 1000].filter((v): v is number => v !== undefined && Number.isFinite(v));
    if (readings.length > 0) this.anchor = { platformMs: Math.max(...readings), mono: timing.receivedMono };
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
