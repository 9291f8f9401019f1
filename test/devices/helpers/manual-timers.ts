import type { Timers } from '../../../src/devices/timers.js';

/** Timers driven by hand: `advance(ms)` fires every timer due, in order. */
export class ManualTimers implements Timers {
  private current = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    this.pending.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let dueId: number | undefined;
      let dueAt = Infinity;
      for (const [id, t] of this.pending) {
        if (t.at <= target && t.at < dueAt) {
          dueAt = t.at;
          dueId = id;
        }
      }
      if (dueId === undefined) break;
      const t = this.pending.get(dueId) as { at: number; fn: () => void };
      this.pending.delete(dueId);
      this.current = t.at;
      t.fn();
    }
    this.current = target;
  }

  get count(): number {
    return this.pending.size;
  }
}
