import type { BenchResult } from './types.js';

/** What the runner (scripts/bench/run.ts) hands every bench, from its command line. */
export interface RunnerOptions {
  certsDir: string;
  count?: number;
  warmup?: number;
  platform?: 'child' | 'embedded';
  idleMs?: number;
}

/**
 * What each `scripts/bench/<name>.bench.ts` exports as `bench`: the runner finds the files by
 * that suffix (the file names the bench) and runs them in `order`, cheapest first, without a
 * list of its own.
 */
export interface BenchDefinition {
  /** Place in a run of every bench: cheaper benches first. */
  order: number;
  /** The count --quick runs it with (a few minutes less, wider error bars). */
  quickCount: number;
  run(options: RunnerOptions): Promise<BenchResult>;
}

/** `{ [key]: value }`, or `{}` when the value is undefined (options are exact: absent, not undefined). */
export const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
