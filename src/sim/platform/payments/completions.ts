import type { Logger } from 'pino';
import type { TimerHandle } from '../../../core/index.js';
import type { SimContext } from '../context.js';
import type { SimTransaction } from './types.js';

/** How long a strict-profile refund or cancel stays pending before it completes by itself. */
export const STRICT_COMPLETION_MS = 300;

interface Waiting {
  tx: SimTransaction;
  /** Platform time at which it completes by itself. */
  at: number;
  /** Its result, when it comes, is a failure (failNext). */
  fails: boolean;
  finish: () => void;
  timer: TimerHandle | undefined;
}

/**
 * Refunds and cancels that complete later (docs/demo-platform.md, "Demo platform": the
 * strict profile answers them pending first, as a refund may be asynchronous). The
 * operation's record is answered pending; `finish` books its result event, final status
 * and money movement when its time has come: by a timer, when the transaction is read
 * after that time on the platform clock, or on the control call.
 */
export class OperationCompletions {
  private readonly waiting = new Map<SimTransaction, Waiting>();
  private readonly log: Logger;
  /** How many of the next operations answered pending get a failed result. */
  private failing = 0;

  /** Called after a timer completed an operation (outside any request: the ledger file is written then). */
  onTimer: () => void = () => undefined;

  constructor(private readonly ctx: SimContext) {
    this.log = ctx.log.child({ component: 'operation-completions' });
  }

  /** The operations still waiting, with the platform time each completes by itself and whether its result fails. */
  pending(): Array<{ tx: SimTransaction; at: number; fails: boolean }> {
    return [...this.waiting.values()].map((w) => ({ tx: w.tx, at: w.at, fails: w.fails }));
  }

  /**
   * The next `count` refunds or cancels answered pending fail asynchronously: answered as
   * usual, their result event later says `Failed` (docs/demo-platform.md, "Demo platform").
   */
  failNext(count: number): void {
    this.failing = Math.max(0, Math.floor(count));
  }

  /** Whether the operation answered pending now is one whose result fails (counts failNext down). */
  takeFailure(): boolean {
    if (this.failing <= 0) return false;
    this.failing--;
    return true;
  }

  /** Completes `tx` after `delayMs` (platform time; 0 or less: at once on the next tick); `finish` runs once. */
  later(tx: SimTransaction, delayMs: number, finish: () => void, fails = false): void {
    const entry: Waiting = { tx, at: this.ctx.now() + delayMs, fails, finish, timer: undefined };
    this.waiting.set(tx, entry);
    entry.timer = this.ctx.clock.setTimeout(
      () => {
        entry.timer = undefined;
        if (this.complete(tx)) this.onTimer();
      },
      Math.max(0, delayMs),
    );
  }

  isPending(tx: SimTransaction): boolean {
    return this.waiting.has(tx);
  }

  /** Completes `tx` now if it waits; false when it did not. */
  complete(tx: SimTransaction): boolean {
    const entry = this.waiting.get(tx);
    if (entry === undefined) return false;
    this.waiting.delete(tx);
    if (entry.timer !== undefined) this.ctx.clock.clearTimeout(entry.timer);
    try {
      entry.finish();
    } catch (err) {
      this.log.error({ err, serverTransactionId: tx.record.serverTransactionId }, 'completing an operation failed');
    }
    return true;
  }

  /** Completes `tx`, and the operations pending on it (a payment read), whose time has come. */
  settle(tx: SimTransaction): void {
    const now = this.ctx.now();
    for (const candidate of [tx, ...tx.children]) {
      const entry = this.waiting.get(candidate);
      if (entry !== undefined && entry.at <= now) this.complete(candidate);
    }
  }

  settleAll(): void {
    const now = this.ctx.now();
    for (const entry of [...this.waiting.values()]) if (entry.at <= now) this.complete(entry.tx);
  }

  stop(): void {
    for (const entry of this.waiting.values()) if (entry.timer !== undefined) this.ctx.clock.clearTimeout(entry.timer);
    this.waiting.clear();
  }
}

/**
 * The strict profile's busy answers to process (docs/demo-platform.md, "Demo platform"): the
 * first call of a new online sale whose amount ends in 29 minor units (a deterministic
 * trigger, like the declines) is answered 429 with Retry-After before anything is recorded.
 */
export class BusyAnswers {
  private readonly refused = new Set<string>();

  /** The sales already answered 429 once (for the ledger file). */
  keys(): string[] {
    return [...this.refused];
  }

  restore(keys: readonly string[]): void {
    for (const k of keys) this.refused.add(k);
  }

  /** True when this call is to be answered 429: the first call of such a sale. */
  refuse(merchantId: string, clientId: string, amount: number): boolean {
    if (amount % 100 !== 29) return false;
    const key = `${merchantId}\u0000${clientId}`;
    if (this.refused.has(key)) return false;
    this.refused.add(key);
    return true;
  }
}
