import { AgentError, ErrorCodes, type Logger, type TimeSource } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import {
  uploadSettlement,
  type JournalRow,
  type OfflineSaleReports,
  type SettledUpload,
  type UploadResultWrite,
} from '../payments/index.js';
import type { TransactionRecord } from '../platform/index.js';
import type { OfflineQueue } from './queue.js';
import type { AttemptOutcome, QueueItem, QueueState } from './types.js';

/** A settled upload written and not yet told (OutcomeRecorder.settleAll). */
export interface AnnounceSettled {
  item: QueueItem;
  record: TransactionRecord;
  declinedWhy: string | undefined;
  /** The journal row as the same transaction wrote it; undefined when it was left as it was. */
  journalRow: JournalRow | undefined;
}

/** An answered upload to write (ResultCommits): the sale, the platform's record and how it was learnt. */
export interface AnsweredUpload {
  clientTransactionId: string;
  record: TransactionRecord;
  outcome: Extract<AttemptOutcome, 'accepted' | 'declined' | 'found'>;
}

/**
 * Applies the result of an upload try to the queue item and, when the journal row changes
 * with it, hands the queue's write to the payments verb that opens the one SQLite
 * transaction for both (docs/offline.md, "Offline and payments"); then tells the bus and
 * the log. Nothing here throws out to the uploader's loop for a bus listener's fault.
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
    const [one] = this.settleAll([{ clientTransactionId, record, outcome }]).settled;
    if (one === undefined || 'error' in one) throw one?.error;
    return this.announceSettled(one);
  }

  /**
   * The write of answered uploads, in one transaction: each queue item and its journal row,
   * the card data dropped, each in its own savepoint (one that cannot be applied fails alone,
   * answered as its error); then `alsoWrite` (the round's next "sending" mark). A write
   * SQLite refuses throws: none of it is on disk. announceSettled each once it has committed
   * (result-commits.ts).
   */
  settleAll<W>(
    answered: readonly AnsweredUpload[],
    alsoWrite?: () => W,
  ): { settled: Array<AnnounceSettled | { error: unknown }>; also: W | undefined } {
    const settlements: Array<UploadResultWrite<Omit<AnnounceSettled, 'journalRow'>>> = answered.map((a) => ({
      clientTransactionId: a.clientTransactionId,
      record: a.record,
      queueWrite: () => this.writeSettled(a),
    }));
    const { settled, also } = this.reports.uploadsSettled(settlements, alsoWrite);
    return {
      settled: settled.map((s: SettledUpload<Omit<AnnounceSettled, 'journalRow'>>) =>
        'error' in s ? { error: s.error } : { ...s.queued, journalRow: s.row },
      ),
      also,
    };
  }

  /** The queue's part of a settled upload: the item settled from the record, its card data dropped (inside settleAll's transaction). */
  writeSettled({ clientTransactionId, record, outcome }: AnsweredUpload): Omit<AnnounceSettled, 'journalRow'> {
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
    return { item, record, declinedWhy };
  }

  /** After the commit of settleAll: the log line and the events (nothing tells of a result not on disk). */
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
    // This refusal's count, known before the write: at the limit the journal row changes with the item.
    const rejections = this.queue.require(clientTransactionId).rejections + 1;
    const count = (): QueueItem =>
      this.queue.update(clientTransactionId, {
        attempt: { at: this.at(), outcome: 'rejected', ...(status !== undefined ? { status } : {}), message },
        countRejection: true,
        message: `upload refused: ${message}`,
      });
    const item =
      rejections < maxAttempts
        ? this.reports.uploadFailed(clientTransactionId, () => {
            count();
            return this.queue.update(clientTransactionId, { state: 'queued' });
          })
        : this.toAttention(clientTransactionId, `offline upload refused ${rejections} times, last: ${message}`, count);
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
    const item = this.toAttention(clientTransactionId, `offline upload cannot be sent: ${message}`, () =>
      this.queue.update(clientTransactionId, {
        attempt: { at: this.at(), outcome: 'rejected', message },
        countRejection: true,
      }),
    );
    this.attentionRaised(item);
    return item;
  }

  /**
   * A sale that may have reached the platform cannot be looked up, and never will be by
   * this terminal (its merchant is no longer one of the terminal's): straight to staff. Its
   * attempt says `unknown`, so a requeue looks it up before sending it again.
   */
  unresolvable(clientTransactionId: string, message: string): QueueItem {
    const item = this.toAttention(clientTransactionId, `offline upload cannot be looked up: ${message}`, () =>
      this.queue.update(clientTransactionId, { attempt: { at: this.at(), outcome: 'unknown', message } }),
    );
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
    const item = this.reports.requeued(clientTransactionId, () => {
      const current = this.queue.require(clientTransactionId);
      if (current.state !== 'needs_attention') {
        throw new AgentError(
          ErrorCodes.PAYMENT_STATE,
          `offline sale ${clientTransactionId} is ${current.state}: only a sale needing attention can be queued again`,
        );
      }
      // One that may have reached the platform is looked up before it is sent again.
      const mayHaveArrived = current.history.at(-1)?.outcome === 'unknown';
      return this.queue.update(clientTransactionId, {
        state: mayHaveArrived ? 'uploading' : 'queued',
        attempt: { at: this.at(), outcome: 'requeued', message: 'queued again by staff' },
        resetRejections: true,
        message: null,
      });
    });
    this.log.info({ clientTransactionId }, 'offline sale queued again by staff');
    this.publish(item, true);
    return item;
  }

  /** `first` (the try's record), then the item to `needs_attention`, and its journal row with it, in one transaction. */
  private toAttention(clientTransactionId: string, message: string, first: () => unknown): QueueItem {
    return this.reports.needsAttention(clientTransactionId, message, () => {
      first();
      return this.queue.update(clientTransactionId, { state: 'needs_attention', message });
    });
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
