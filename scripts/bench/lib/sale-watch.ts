import type { EventBus } from '../../../src/events/bus.js';
import { nowMs } from './stats.js';

/** Where a sale's `done` would resolve (src/payments/engine.ts isSettled). */
export const SETTLED_STATES: ReadonlySet<string> = new Set([
  'approved',
  'declined',
  'failed',
  'cancelled',
  'reversed',
  'needs_attention',
  'offline_stored',
  'reversing',
]);

export interface Settled {
  status: string;
  /** nowMs() when the bus carried the settled state. */
  at: number;
}

/** Sales remembered at most; the oldest is dropped beyond this. */
const MAX_TRACKED = 256;

interface Waiter {
  resolve: (s: Settled) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Timestamps every `transaction.updated` state of each sale as the bus carries it (the
 * moment the journal row changed), so a bench can split a sale into its phases. Call
 * `forget` once a sale is measured: long runs keep nothing.
 */
export class SaleWatch {
  private readonly states = new Map<string, Map<string, number>>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus) {
    this.unsubscribe = bus.on('transaction.updated', (e) => {
      const at = nowMs();
      const { clientTransactionId: id, status } = e.data;
      let seen = this.states.get(id);
      if (seen === undefined) {
        seen = new Map();
        this.states.set(id, seen);
        // Events after `forget` (or of sales nobody waits for) must not pile up in long runs.
        if (this.states.size > MAX_TRACKED) this.states.delete(this.states.keys().next().value as string);
      }
      if (!seen.has(status)) seen.set(status, at);
      if (SETTLED_STATES.has(status)) {
        const w = this.waiters.get(id);
        if (w !== undefined) {
          this.waiters.delete(id);
          clearTimeout(w.timer);
          w.resolve({ status, at });
        }
      }
    });
  }

  /** When the sale first reached `status` (nowMs()), if it did. */
  at(id: string, status: string): number | undefined {
    return this.states.get(id)?.get(status);
  }

  /** Resolves once the sale is settled (at once if it is already). */
  settled(id: string, timeoutMs = 30_000): Promise<Settled> {
    const seen = this.states.get(id);
    if (seen !== undefined) {
      for (const [status, at] of seen) if (SETTLED_STATES.has(status)) return Promise.resolve({ status, at });
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(id);
        reject(new Error(`sale ${id} did not settle within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(id, { resolve, reject, timer });
    });
  }

  forget(id: string): void {
    this.states.delete(id);
  }

  stop(): void {
    this.unsubscribe();
    for (const w of this.waiters.values()) {
      clearTimeout(w.timer);
      w.reject(new Error('watch stopped'));
    }
    this.waiters.clear();
    this.states.clear();
  }
}
