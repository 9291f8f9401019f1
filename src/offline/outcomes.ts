import { AgentError, ErrorCodes, type Logger, type TimeSource } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import { uploadSettlement, type JournalRow, type OfflineSaleReports } from '../payments/index.js';
import type { TransactionRecord } from '../platform/index.js';
import type { OfflineQueue } from './queue.js';
import type { AttemptOutcome, QueueItem, QueueState } from './types.js';

/** A settled upload written and not yet told (OutcomeRecorder.applySettled). */
export interface AnnounceSettled {
  item: QueueItem;
  record: TransactionRecord;
  declinedWhy: string | undefined;
  /** The journal row as the same transaction wrote it; undefined when it was left as it was. */
  journalRow: JournalRow | undefined;
}

/**
 * Applies the result of an upload try to the queue item and, when the platform settled the
 * sale, to its journal row, in one SQLite transaction; then tells the bus and the log.
 * Nothing here throws out to the uploader's loop for a bus listener's fault.
 */
export class OutcomeRecorder {
  constructor(
    private readonly queue: OfflineQueue,
    private readonly reports: OfflineSaleReports,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly clock: Pick<TimeSource, 'wall'>,
  ) {}

  /** Holds the journal's card-data scrub for an upload round (one checkpoint per round, not per sale); call the release at its end. */
  holdScrub(): () => void {
    return this.reports.holdScrub();
  }

  private at(): string {
    return new Date(this.clock.wall()).toISOString();
  }

  /** The platform answered with a record (the upload, or a lookup found it): one transaction, then the log and the bus. */
  settled(
    clientTransactionId: string,
    record: TransactionRecord,
    outcome: Extract<AttemptOutcome, 'accepted' | 'declined' | 'found'>,
  ): QueueItem {
    return this.announceSettled(
      this.reports.transaction(() => this.applySettled(clientTransactionId, record, outcome)),
    );
  }

  /** Runs `fn` in one SQLite transaction with the journal (a savepoint inside another). */
  inTransaction<T>(fn: () => T): T {
    return this.reports.transaction(fn);
  }

  /**
   * The write of `settled`: the queue item and its journal row, the card data dropped. Call
   * inside a transaction; announceSettled once it has committed (result-commits.ts).
   */
  applySettled(
    clientTransactionId: string,
    record: TransactionRecord,
    outcome: Extract<AttemptOutcome, 'accepted' | 'declined' | 'found'>,
  ): AnnounceSettled {
    const { settledAs: as, declinedMessage: declinedWhy } = uploadSettlement(record);
    const item = this.queue.update(clientTransactionId, {
      state: as,
      attempt: {
        at: this.at(),
        outcome: outcome === 'found' ? 'found' : as === 'uploaded' ? 'accepted' : 'declined',
        message: declinedWhy ?? `platform status ${record.transactionStatus}`,
      },
      serverTransactionId: record.serverTransactionId,
      platformStatus: record.transactionStatus,
      message: declinedWhy ?? null,
      dropBody: true,
    });
    const journalRow = this.reports.uploadSettled(clientTransactionId, record);
    return { item, record, declinedWhy, journalRow };
  }

  /** After the commit of applySettled: the log line and the events (nothing tells of a result not on disk). */
  announceSettled(s: AnnounceSettled): QueueItem {
    const { item, record, declinedWhy } = s;
    const clientTransactionId = item.clientTransactionId;
    if (item.state === 'uploaded') {
      this.log.info(
        { clientTransactionId, serverTransactionId: record.serverTransactionId, status: record.transactionStatus },
        'offline sale uploaded',
      );
    } else {
      this.log.warn(
        {
          clientTransactionId,
          serverTransactionId: record.serverTransactionId,
          amount: item.amount,
          currency: item.currency,
          maskedPan: item.maskedPan,
        },
        'offline sale declined after upload',
      );
      this.bus.publish('offline.warning', {
        message: `sale ${clientTransactionId} ${declinedWhy ?? 'declined after upload'}`,
        clientTransactionId,
      });
    }
    this.publish(item);
    // The row as written: announced without reading it back (nothing ran between the commit and here).
    if (s.journalRow !== undefined) this.reports.announceRow(s.journalRow);
    return item;
  }

  /** The platform refused the request (4xx): counted; at maxAttempts the item needs attention. */
  rejected(clientTransactionId: string, message: string, status: number | undefined, maxAttempts: number): QueueItem {
    const item = this.reports.transaction(() => {
      const counted = this.queue.update(clientTransactionId, {
        attempt: { at: this.at(), outcome: 'rejected', ...(status !== undefined ? { status } : {}), message },
        countRejection: true,
        message: `upload refused: ${message}`,
      });
      if (counted.rejections < maxAttempts) return this.queue.update(clientTransactionId, { state: 'queued' });
      return this.toAttention(
        clientTransactionId,
        `offline upload refused ${counted.rejections} times, last: ${message}`,
      );
    });
    if (item.state === 'needs_attention') this.attentionRaised(item);
    else this.publish(item);
    this.log.warn(
      { clientTransactionId, status, rejections: item.rejections, state: item.state },
      'offline upload refused by the platform',
    );
    return item;
  }

  /** A body that can never be sent: straight to staff, retrying cannot help. */
  unsendable(clientTransactionId: string, message: string): QueueItem {
    const item = this.reports.transaction(() => {
      this.queue.update(clientTransactionId, {
        attempt: { at: this.at(), outcome: 'rejected', message },
        countRejection: true,
      });
      return this.toAttention(clientTransactionId, `offline upload cannot be sent: ${message}`);
    });
    this.attentionRaised(item);
    return item;
  }

  /**
   * A sale that may have reached the platform cannot be looked up, and never will be by
   * this terminal (its merchant is no longer one of the terminal's): straight to staff. Its
   * attempt says `unknown`, so a requeue looks it up before sending it again.
   */
  unresolvable(clientTransactionId: string, message: string): QueueItem {
    const item = this.reports.transaction(() => {
      this.queue.update(clientTransactionId, { attempt: { at: this.at(), outcome: 'unknown', message } });
      return this.toAttention(clientTransactionId, `offline upload cannot be looked up: ${message}`);
    });
    this.attentionRaised(item);
    return item;
  }

  /** Not reached, 5xx, timeout, auth trouble: kept for the next try, not counted. */
  deferred(
    clientTransactionId: string,
    outcome: Extract<AttemptOutcome, 'unavailable' | 'unknown'>,
    message: string,
    status?: number,
  ): QueueItem {
    // `uploading` marks "may have arrived": the next try looks it up before sending again.
    const state: QueueState = outcome === 'unknown' ? 'uploading' : 'queued';
    const item = this.queue.update(clientTransactionId, {
      state,
      attempt: { at: this.at(), outcome, ...(status !== undefined ? { status } : {}), message },
    });
    this.log.info({ clientTransactionId, outcome, status }, 'offline upload deferred');
    return item;
  }

  /** A lookup found nothing at the platform: the sale never arrived and is safe to send. */
  notFound(clientTransactionId: string): void {
    this.queue.update(clientTransactionId, {
      state: 'queued',
      attempt: { at: this.at(), outcome: 'not_found', message: 'not at the platform: sending' },
    });
  }

  /** Staff decided to try an item needing attention again: refusals start from zero, history stays. */
  requeued(clientTransactionId: string): QueueItem {
    const item = this.reports.transaction(() => {
      const current = this.queue.require(clientTransactionId);
      if (current.state !== 'needs_attention') {
        throw new AgentError(
          ErrorCodes.PAYMENT_STATE,
          `offline sale ${clientTransactionId} is ${current.state}: only a sale needing attention can be queued again`,
        );
      }
      // One that may have reached the platform is looked up before it is sent again.
      const mayHaveArrived = current.history.at(-1)?.outcome === 'unknown';
      const updated = this.queue.update(clientTransactionId, {
        state: mayHaveArrived ? 'uploading' : 'queued',
        attempt: { at: this.at(), outcome: 'requeued', message: 'queued again by staff' },
        resetRejections: true,
        message: null,
      });
      this.reports.requeued(clientTransactionId);
      return updated;
    });
    this.log.info({ clientTransactionId }, 'offline sale queued again by staff');
    this.publish(item, true);
    return item;
  }

  private toAttention(clientTransactionId: string, message: string): QueueItem {
    const item = this.queue.update(clientTransactionId, { state: 'needs_attention', message });
    this.reports.needsAttention(clientTransactionId, message);
    return item;
  }

  private attentionRaised(item: QueueItem): void {
    this.log.error(
      { clientTransactionId: item.clientTransactionId, rejections: item.rejections },
      'offline sale needs attention: upload keeps failing',
    );
    this.bus.publish('offline.warning', {
      message: `sale ${item.clientTransactionId} needs attention: ${item.message ?? 'upload keeps failing'}`,
      clientTransactionId: item.clientTransactionId,
    });
    this.publish(item, true);
  }

  /** `offline.item`, then (when the journal row may have changed) the row's `transaction.updated`. */
  private publish(item: QueueItem, journalRow = false): void {
    this.bus.publish('offline.item', {
      clientTransactionId: item.clientTransactionId,
      state: item.state,
      amount: item.amount,
      currency: item.currency,
      ...(item.serverTransactionId !== undefined ? { serverTransactionId: item.serverTransactionId } : {}),
      ...(item.message !== undefined ? { message: item.message } : {}),
    });
    if (journalRow) this.reports.announce(item.clientTransactionId);
  }
}
