import type { TimerHandle, TimerSource } from '../core/index.js';
import type { OutcomeRecorder } from './outcomes.js';
import type { AttemptOutcome, QueueItem } from './types.js';
import type { TransactionRecord } from '../platform/index.js';

/**
 * Results written in one durable commit at most; reaching it commits on the next turn of the
 * event loop. Above the 16 items a "sending" mark covers (mark-ahead.ts), so results
 * normally go with the next mark.
 */
export const MAX_RESULTS_PER_COMMIT = 32;
/** Longest an answered upload waits for its commit (its events and log line wait with it). */
export const RESULT_COMMIT_WAIT_MS = 50;

interface PendingResult {
  clientTransactionId: string;
  record: TransactionRecord;
  outcome: Extract<AttemptOutcome, 'accepted' | 'declined' | 'found'>;
  resolve(item: QueueItem): void;
  reject(err: unknown): void;
}

/**
 * Group commit of an upload round's answered uploads (docs/offline.md, "Offline
 * queue", results of a round). An upload's result (queue item settled, journal row
 * following, card data dropped) was one durable commit per upload, an fsync that blocks the
 * agent's one event loop, so four uploads at a time waited for four fsyncs in a row. Here
 * the answers a round gets are written together: with the next "sending" mark the round
 * writes anyway (MarkAhead), when MAX_RESULTS_PER_COMMIT are waiting (on the next turn),
 * RESULT_COMMIT_WAIT_MS after the first answer, and when the round ends, whichever comes
 * first.
 *
 * Why that keeps the invariants (docs/architecture.md, "Invariants" 1 and 2):
 * - Nothing relies on a result before its commit: the item's events and log line, its
 *   journal row's `transaction.updated`, the round's report and the next round all come
 *   after it. The worker's next request is for another sale, marked `uploading` on disk
 *   before it leaves.
 * - A process that dies before the commit leaves the item `uploading` on disk, exactly as
 *   if it had died while the request was in flight: the next round looks it up by client
 *   id and settles it from what the platform has (never sent twice).
 * - The card data goes in the same commit as the result, and its scrub comes after it
 *   (the round holds the scrub until it ends: Journal.holdScrub).
 * The transaction is payments' (`OfflineSaleReports.uploadsSettled`, which moves each journal
 * row with its item). Each result is applied in its own savepoint, so one that cannot be
 * (its item gone) fails alone; a commit SQLite refuses (disk full) fails every result in it,
 * each then handled as its own failed write.
 */
export class ResultCommits {
  private pending: PendingResult[] = [];
  private timer: TimerHandle | undefined;
  private immediate: ReturnType<typeof setImmediate> | undefined;
  private closed = false;

  constructor(
    private readonly recorder: OutcomeRecorder,
    private readonly timers: Pick<TimerSource, 'setTimeout' | 'clearTimeout'>,
    /** After each commit that settled at least one item (levels). */
    private readonly afterCommit: () => void = () => undefined,
  ) {}

  /** Results answered and not yet on disk. */
  get waiting(): number {
    return this.pending.length;
  }

  /** The platform answered an upload (or a lookup found it): resolves once its result is on disk. */
  settle(
    clientTransactionId: string,
    record: TransactionRecord,
    outcome: PendingResult['outcome'],
  ): Promise<QueueItem> {
    if (this.closed) return Promise.resolve(this.recorder.settled(clientTransactionId, record, outcome));
    return new Promise<QueueItem>((resolve, reject) => {
      this.pending.push({ clientTransactionId, record, outcome, resolve, reject });
      // On the next turn, not now: the worker that got this answer sends its next request first.
      if (this.pending.length >= MAX_RESULTS_PER_COMMIT) this.soon();
      else
        this.timer ??= this.timers.setTimeout(() => {
          this.timer = undefined;
          this.commit();
        }, RESULT_COMMIT_WAIT_MS);
    });
  }

  /** Commits the waiting results on the next turn of the event loop (once, however often asked). */
  soon(): void {
    if (this.immediate !== undefined || this.closed) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.commit();
    });
  }

  /**
   * Commits the waiting results, with `write` (a "sending" mark) in the same transaction
   * when given; answers what `write` answered. Without waiting results it is `write` alone.
   */
  commit<T>(write?: () => T): T | undefined {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.immediate = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return write?.();
    let done: ReturnType<OutcomeRecorder['settleAll']>;
    try {
      done = this.recorder.settleAll(batch, write);
    } catch (err) {
      // The commit itself failed (disk full): none of these results is on disk.
      for (const p of batch) p.reject(err);
      if (write !== undefined) throw err;
      return undefined;
    }
    batch.forEach((p, i) => {
      const s = done.settled[i];
      if (s === undefined || 'error' in s) p.reject(s?.error);
      else p.resolve(this.recorder.announceSettled(s));
    });
    if (done.settled.some((s) => !('error' in s))) this.afterCommit();
    return done.also as T | undefined;
  }

  /** The round ends: every waiting result is committed; later results are written one by one. */
  close(): void {
    this.commit();
    this.closed = true;
  }
}
