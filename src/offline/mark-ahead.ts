import type { OfflineQueue, PendingUpload } from './queue.js';

/** Queued items marked `uploading` per durable write, ahead of their requests. */
const MARK_AHEAD = 16;

/**
 * The durable "may have been sent" mark of a round's queued items, written for up to
 * MARK_AHEAD items at a time instead of once per item, so an upload costs about one durable
 * write (its result) instead of two.
 *
 * Why it is as safe as one mark per item (docs/architecture.md, "Invariants" 1 and 2):
 * every item is still marked, durably, before its request leaves; an item marked and not
 * yet sent is only "may have been sent" too early. After a crash such an item is looked up
 * by its client id before it is sent (not found: sent then), exactly as one whose request
 * did leave; so at most MARK_AHEAD sales per crash cost an extra lookup, and none is sent
 * twice. When the round ends before their requests start (platform trouble, stop), the items
 * go back to `queued` in one write, as they were. Items already `uploading` at the start
 * (a previous try may have arrived) are not marked ahead: they keep the lookup first, then
 * their own mark just before their request.
 *
 * Not done, on purpose: sending without any mark and counting on the platform answering a
 * repeated clientNewTransactionId with the existing transaction. The demo platform does, but
 * the platform spec does not promise it, and the agent looks up before
 * re-sending; a platform that took the repeat as a new sale would charge the customer twice.
 */
export class MarkAhead {
  private readonly marked = new Set<number>();
  private readonly unsent = new Set<number>();

  constructor(
    private readonly queue: OfflineQueue,
    private readonly items: readonly PendingUpload[],
    /** Runs the mark's write; the uploader commits the round's waiting results with it (result-commits.ts). */
    private readonly write: (mark: () => string[]) => string[] = (mark) => mark(),
  ) {}

  /** Item `index`'s request is about to start: whether it is marked (marks the next few queued items first when it is not). */
  take(index: number): boolean {
    const p = this.items[index];
    if (p === undefined || p.item.state !== 'queued') return false;
    if (!this.marked.has(index)) {
      const batch: number[] = [];
      for (let i = index; i < this.items.length && batch.length < MARK_AHEAD; i++) {
        if (!this.marked.has(i) && this.items[i]?.item.state === 'queued') batch.push(i);
      }
      const ids = batch.map((i) => (this.items[i] as PendingUpload).item.clientTransactionId);
      const done = new Set(this.write(() => this.queue.markUploading(ids)));
      for (const i of batch) {
        if (!done.has((this.items[i] as PendingUpload).item.clientTransactionId)) continue;
        this.marked.add(i);
        this.unsent.add(i);
      }
    }
    this.unsent.delete(index);
    return this.marked.has(index);
  }

  /** The round is over: items marked ahead whose request never started go back to `queued`. */
  release(): void {
    const back = [...this.unsent].map((i) => this.items[i] as PendingUpload);
    this.unsent.clear();
    this.queue.unmarkUnsent(back.map((p) => ({ clientTransactionId: p.item.clientTransactionId, lastTryAtMs: p.lastTryAtMs })));
  }
}
