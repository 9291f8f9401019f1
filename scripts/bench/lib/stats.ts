/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

export function max(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : Math.max(...samples);
}

export function min(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : Math.min(...samples);
}

/** Milliseconds since an arbitrary origin, monotonic. */
export function nowMs(): number {
  return performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Bytes to MiB: the targets' "MB" read as MiB, the stricter reading. */
export function mb(bytes: number): number {
  return bytes / (1024 * 1024);
}
