import type { OfflineQueue, PendingUpload } from './queue.js';

/** Queued items marked `uploading` per durable write, ahead of their requests. */
const MARK_AHEAD = 16;
/** Marked items still to be sent below which the next batch is marked while a request is out (`topUp`). */
const LOW_WATER = MARK_AHEAD / 2;
/**
 * Longest a request leaves after the try time its item has on disk: a mark older than this
 * when its request is about to start is written again first (`take`). The lookup grace of
 * an item left `uploading` counts from that time plus this (uploader.ts).
 */
export const MARK_FRESH_MS = 1_000;

/**
 * The durable "may have been sent" mark of a round's queued items, written for up to
 * MARK_AHEAD items at a time instead of once per item, so an upload costs about one durable
 * write (its result) instead of two.
 *
 * Why it is as safe as one mark per item (docs/architecture.md, "Invariants" 1 and 2):
 * every item is still marked, durably, before its request leaves; an item marked and not
 * yet sent is only "may have been sent" too early. After a crash such an item is looked up
 * by its client id before it is sent (not found through the lookup grace: sent then),
 * exactly as one whose request did leave; so at most MARK_AHEAD + LOW_WATER sales per crash
 * cost extra lookups and the wait of the grace, and none is sent twice. The next batch is marked while a request is out (`topUp`), so at
 * one upload at a time the mark's commit, and the results it carries, overlap the platform's
 * answer instead of delaying the next request. When the round ends before their requests start (platform trouble, stop), the items
 * go back to `queued` in one write, as they were. Items already `uploading` at the start
 * (a previous try may have arrived) are not marked ahead: they keep the lookup first, then
 * their own mark just before their request.
 *
 * The mark's time on disk (`last_try_at`) is also when the item's lookup grace starts after
 * a crash (docs/offline.md, "Offline queue"), so it must not say the request left long
 * before it did: when the platform answers slowly, the items marked ahead would wait
 * behind several requests. A mark older than MARK_FRESH_MS when its request is about to
 * start is written again first, with every other item marked and not yet sent (one write,
 * not another try), so every request leaves within MARK_FRESH_MS of its time on disk. At
 * the platform's usual pace no mark gets that old; a slow platform costs at most one such
 * write a second.
 *
 * Not done, on purpose: sending without any mark and counting on the platform answering a
 * repeated clientNewTransactionId with the existing transaction. The demo platform does, but
 * the platform spec does not promise it, and the agent looks up before
 * re-sending; a platform that took the repeat as a new sale would charge the customer twice.
 */
export class MarkAhead {
  private readonly marked = new Set<number>();
  private readonly unsent = new Set<number>();
  /** When each marked item's mark was written, taken before its write (so never later than the time on disk). */
  private readonly markedAt = new Map<number, number>();
  private released = false;

  constructor(
    private readonly queue: OfflineQueue,
    private readonly items: readonly PendingUpload[],
    /** Runs the mark's write; the uploader commits the round's waiting results with it (result-commits.ts). */
    private readonly write: (mark: () => string[]) => string[] = (mark) => mark(),
    /** The wall clock the queue writes its times with. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Item `index`'s request is about to start: whether it is marked (marks the next few
   * queued items first when it is not; writes the marks waiting to be sent again first when
   * its own is older than MARK_FRESH_MS).
   */
  take(index: number): boolean {
    const p = this.items[index];
    if (p === undefined || p.item.state !== 'queued') return false;
    if (!this.marked.has(index)) this.markFrom(index);
    else if (this.now() - (this.markedAt.get(index) ?? 0) > MARK_FRESH_MS) this.refresh();
    this.unsent.delete(index);
    return this.marked.has(index);
  }

  /**
   * A request is out and `next` is the index of the next item to send: when fewer than
   * LOW_WATER marked items wait to be sent, marks the next batch now, while the platform
   * answers, so the request that needs it does not wait for its commit (docs/offline.md,
   * "Offline queue", results of a round). Answers whether it wrote.
   */
  topUp(next: number): boolean {
    if (this.released) return false;
    let waiting = 0;
    for (const i of this.unsent) if (i >= next) waiting += 1;
    if (waiting >= LOW_WATER) return false;
    let from = next;
    while (from < this.items.length && (this.marked.has(from) || this.items[from]?.item.state !== 'queued')) from += 1;
    if (from >= this.items.length) return false;
    this.markFrom(from);
    return true;
  }

  private markFrom(index: number): void {
    const batch: number[] = [];
    for (let i = index; i < this.items.length && batch.length < MARK_AHEAD; i++) {
      if (!this.marked.has(i) && this.items[i]?.item.state === 'queued') batch.push(i);
    }
    const ids = batch.map((i) => (this.items[i] as PendingUpload).item.clientTransactionId);
    const at = this.now();
    const done = new Set(this.write(() => this.queue.markUploading(ids)));
    for (const i of batch) {
      if (!done.has((this.items[i] as PendingUpload).item.clientTransactionId)) continue;
      this.marked.add(i);
      this.unsent.add(i);
      this.markedAt.set(i, at);
    }
  }

  /** Writes the marks of every item marked and not yet sent again, with the time of now. */
  private refresh(): void {
    const batch = [...this.unsent];
    const ids = batch.map((i) => (this.items[i] as PendingUpload).item.clientTransactionId);
    const at = this.now();
    const done = new Set(this.write(() => this.queue.refreshMarks(ids)));
    for (const i of batch) {
      if (done.has((this.items[i] as PendingUpload).item.clientTransactionId)) this.markedAt.set(i, at);
      else {
        // No longer `uploading` on disk (nothing else writes it during a round): not taken as marked.
        this.marked.delete(i);
        this.unsent.delete(i);
      }
    }
  }

  /** The round is over: items marked ahead whose request never started go back to `queued`; nothing more is marked. */
  release(): void {
    this.released = true;
    const back = [...this.unsent].map((i) => this.items[i] as PendingUpload);
    this.unsent.clear();
    this.queue.unmarkUnsent(
      back.map((p) => ({ clientTransactionId: p.item.clientTransactionId, lastTryAtMs: p.lastTryAtMs })),
    );
  }
}
