import type { Clock } from '../../src/core/index.js';

/**
 * A Clock driven by hand: `advance(ms)` fires every timer due, in order. Monotonic time
 * starts at 0; wall time at a fixed date, moving with it.
 */
export class ManualClock implements Clock {
  private current = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  constructor(private readonly wallStart = Date.UTC(2026, 0, 1)) {}

  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    this.pending.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  mono(): number {
    return this.current;
  }

  wall(): number {
    return this.wallStart + this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        this.clearTimeout(id);
        reject(signal?.reason);
      };
      const id = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
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
