/** One line of a bench's table: what was measured, the figure, and the target when it has one. */
export interface BenchRow {
  measure: string;
  value: number;
  unit: string;
  /** The target in words, e.g. "<= 1.5x floor (1.23 ms)". */
  target?: string;
  /** Undefined for figures shown for context only. */
  met?: boolean;
}

export interface BenchResult {
  name: string;
  /** The counts and settings the figures were taken with. */
  params: Record<string, number | string | boolean>;
  rows: BenchRow[];
  /** Where the time goes, what is not measured, caveats. */
  notes: string[];
}

/** Options every bench accepts; each bench adds its own. */
export interface CommonBenchOptions {
  /** Directory holding the dev PKI (generated into a temp dir when absent). */
  certsDir?: string;
  /** Repository root: config/ and dist/ are found from here (default: found from this file). */
  repoDir?: string;
}

/** Whether every row with a target met it. */
export function allTargetsMet(result: BenchResult): boolean {
  return result.rows.every((r) => r.met !== false);
}
