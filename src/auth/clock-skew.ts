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
 * say when the terminal's wall clock is wrong.
 */
export class ClockSkewMeter {
  private last: ClockSkew | undefined;

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
    return this.last;
  }

  current(): ClockSkew | undefined {
    return this.last;
  }
}
