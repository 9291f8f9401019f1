import { nowMs } from './stats.js';

type Method = (...args: never[]) => unknown;

/**
 * Where a bench's time goes, taken by the bench and not by the agent: methods of the agent's
 * own objects (or of their classes) are wrapped, and the time of each call, while `active`,
 * is added to the part its `part` function names. A wrapped call made inside another counts
 * in its own part, and the outer call's part gets only its own time (exclusive). Only
 * synchronous work is timed: what a method returns is not waited for. Nothing of the
 * agent's code changes; `restore` undoes every wrap (docs/performance.md, "Quality targets").
 */
export class TimeSplit {
  active = false;
  private readonly spent = new Map<string, number>();
  private readonly restores: Array<() => void> = [];
  /** For each wrapped call running, the time of the wrapped calls inside it. */
  private readonly inner: number[] = [];

  /** `now`: milliseconds, monotonic (tests pass a clock they move). */
  constructor(private readonly now: () => number = nowMs) {}

  /** Wraps `target[key]`: its calls count under `part` (a fixed name, or one chosen at each call). */
  wrap<T extends object, K extends keyof T & string>(target: T, key: K, part: string | (() => string)): void {
    const original = target[key] as unknown as Method;
    const split = this;
    this.replace(target, key, function (this: unknown, ...args: never[]): unknown {
      if (!split.active) return original.apply(this, args);
      const name = typeof part === 'string' ? part : part();
      const t0 = split.now();
      split.inner.push(0);
      try {
        return original.apply(this, args);
      } finally {
        const took = split.now() - t0;
        split.add(name, took - (split.inner.pop() ?? 0));
        const outer = split.inner.length - 1;
        if (outer >= 0) split.inner[outer] = (split.inner[outer] ?? 0) + took;
      }
    } as T[K]);
  }

  /** Sets `target[key]` to `value` until `restore`. */
  replace<T extends object, K extends keyof T & string>(target: T, key: K, value: T[K]): void {
    const original = target[key];
    const had = Object.prototype.hasOwnProperty.call(target, key);
    target[key] = value;
    this.restores.push(() => {
      if (had) target[key] = original;
      else delete target[key];
    });
  }

  /** Adds time measured elsewhere (milliseconds) to a part. */
  add(part: string, ms: number): void {
    this.spent.set(part, (this.spent.get(part) ?? 0) + ms);
  }

  /** Milliseconds spent in a part so far. */
  ms(part: string): number {
    return this.spent.get(part) ?? 0;
  }

  restore(): void {
    for (const undo of this.restores.splice(0).reverse()) undo();
  }
}
