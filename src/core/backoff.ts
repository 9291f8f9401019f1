/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And
 * Jitter"): delay = random(0, min(cap, base * 2^attempt)). Retry-After, when the peer
 * sends one, is a floor.
 */
export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  random?: () => number;
}

export const defaultBackoff: BackoffOptions = { baseMs: 1_000, capMs: 5 * 60_000 };

export function backoffDelay(attempt: number, opts: BackoffOptions = defaultBackoff, retryAfterMs?: number): number {
  const random = opts.random ?? Math.random;
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  const jittered = Math.floor(random() * ceiling);
  return retryAfterMs !== undefined && retryAfterMs > jittered ? Math.min(retryAfterMs, opts.capMs) : jittered;
}

/** Parses an HTTP Retry-After value (delta-seconds or HTTP-date) into milliseconds. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
