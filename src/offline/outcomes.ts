import type { Database } from 'better-sqlite3';
import { AgentError, ErrorCodes } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { TransactionState } from '../payments/api.js';
import type { JournalPatch, JournalRow } from '../payments/journal/index.js';
import { formatAmount } from '../payments/money.js';
import { transactionUpdated } from '../payments/transaction-event.js';
import { capturedOf, classifyStatus, newEvents, publicEvent, recordEvents, resultMessage, saleStateFor, type PlatformRecord } from '../payments/records.js';
import type { TransactionRecord } from '../platform/schemas/responses.js';
import type { OfflineQueue } from './queue.js';
import type { AttemptOutcome, QueueItem, QueueState } from './types.js';

/** What the uploader needs of the journal (src/payments/journal). */
export interface UploadJournal {
  transaction<T>(fn: (db: Database) => T): T;
  get(clientTransactionId: string): JournalRow | undefined;
  update(clientTransactionId: string, patch: JournalPatch): JournalRow;
}

/** Journal states an offline sale's row is in until its upload is settled. */
const OPEN_JOURNAL_STATES: ReadonlySet<string> = new Set(['offline_stored', 'needs_attention']);

export type SettledAs = 'uploaded' | 'declined_after_upload';

/** The platform has the sale; refused, failed or expired means the money was not collected. */
export function settledAs(record: TransactionRecord): SettledAs {
  const cls = classifyStatus(record.transactionStatus);
  return cls === 'refused' || cls === 'failed' || cls === 'expired' ? 'declined_after_upload' : 'uploaded';
}

/** The journal patch for the platform's record of an uploaded sale (as the engine adopts records). */
function journalPatch(row: JournalRow, record: TransactionRecord, declinedWhy: string | undefined): JournalPatch {
  const status = record.transactionStatus;
  const state: TransactionState = saleStateFor(status) ?? 'needs_attention';
  const incoming = recordEvents(record as PlatformRecord).map(publicEvent);
  const fresh = newEvents(row.events, incoming);
  const amount = formatAmount(row.amount, row.currency);
  const patch: JournalPatch = {
    state,
    serverTransactionId: record.serverTransactionId,
    platformStatus: status,
    offline: true,
    message:
      declinedWhy ??
      (state === 'approved'
        ? `approved offline and uploaded: ${amount}${/^captured$/i.test(status) ? '' : ' authorized (not captured yet)'}`
        : state === 'cancelled'
          ? 'uploaded offline sale is cancelled at the platform: nothing is charged'
          : `uploaded offline sale has platform status "${status}"; check the transaction with the platform`),
  };
  if (fresh.length > 0) patch.events = [...row.events, ...fresh];
  if (state === 'approved') {
    const captured = capturedOf(record as PlatformRecord);
    if (/^captured$/i.test(status)) patch.capturedAmount = captured ?? row.amount;
    else if (captured !== undefined) patch.capturedAmount = captured;
  }
  return patch;
}

/**
 * Applies the result of an upload try to the queue item and, when the platform settled the
 * sale, to its journal row, in one SQLite transaction; then tells the bus and the log.
 * Nothing here throws out to the uploader's loop for a bus listener's fault.
 */
export class OutcomeRecorder {
  constructor(
    private readonly queue: OfflineQueue,
    private readonly journal: UploadJournal,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  private at(): string {
    return new Date(this.now()).toISOString();
  }

  /** The platform answered with a record (the upload, or a lookup by client id found it). */
  settled(clientTransactionId: string, record: TransactionRecord, outcome: Extract<AttemptOutcome, 'accepted' | 'declined' | 'found'>): QueueItem {
    const as = settledAs(record);
    const declinedWhy = as === 'declined_after_upload' ? `declined after upload: ${resultMessage(record as PlatformRecord) ?? record.transactionStatus}` : undefined;
    let journalRow: JournalRow | undefined;
    const item = this.journal.transaction(() => {
      const updated = this.queue.update(clientTransactionId, {
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
      const row = this.journal.get(clientTransactionId);
      if (row !== undefined && OPEN_JOURNAL_STATES.has(row.state)) {
        journalRow = this.journal.update(clientTransactionId, journalPatch(row, record, declinedWhy));
      } else if (row !== undefined) {
        this.log.warn({ clientTransactionId, journalState: row.state }, 'offline upload settled a sale whose journal row moved on: journal left as it is');
      }
      return updated;
    });
    if (as === 'uploaded') {
      this.log.info({ clientTransactionId, serverTransactionId: record.serverTransactionId, status: record.transactionStatus }, 'offline sale uploaded');
    } else {
      this.log.warn(
        { clientTransactionId, serverTransactionId: record.serverTransactionId, amount: item.amount, currency: item.currency, maskedPan: item.maskedPan },
        'offline sale declined after upload',
      );
      this.bus.publish('offline.warning', { message: `sale ${clientTransactionId} ${declinedWhy ?? 'declined after upload'}`, clientTransactionId });
    }
    this.publish(item, journalRow);
    return item;
  }

  /** The platform refused the request (4xx): counted; at maxAttempts the item needs attention. */
  rejected(clientTransactionId: string, message: string, status: number | undefined, maxAttempts: number): QueueItem {
    const item = this.journal.transaction(() => {
      const counted = this.queue.update(clientTransactionId, {
        attempt: { at: this.at(), outcome: 'rejected', ...(status !== undefined ? { status } : {}), message },
        countRejection: true,
        message: `upload refused: ${message}`,
      });
      if (counted.rejections < maxAttempts) return this.queue.update(clientTransactionId, { state: 'queued' });
      return this.toAttention(clientTransactionId, `offline upload refused ${counted.rejections} times, last: ${message}`);
    });
    if (item.state === 'needs_attention') this.attentionRaised(item);
    else this.publish(item);
    this.log.warn({ clientTransactionId, status, rejections: item.rejections, state: item.state }, 'offline upload refused by the platform');
    return item;
  }

  /** A body that can never be sent: straight to staff, retrying cannot help. */
  unsendable(clientTransactionId: string, message: string): QueueItem {
    const item = this.journal.transaction(() => {
      this.queue.update(clientTransactionId, { attempt: { at: this.at(), outcome: 'rejected', message }, countRejection: true });
      return this.toAttention(clientTransactionId, `offline upload cannot be sent: ${message}`);
    });
    this.attentionRaised(item);
    return item;
  }

  /** Not reached, 5xx, timeout, auth trouble: kept for the next try, not counted. */
  deferred(clientTransactionId: string, outcome: Extract<AttemptOutcome, 'unavailable' | 'unknown'>, message: string, status?: number): QueueItem {
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
    this.queue.update(clientTransactionId, { state: 'queued', attempt: { at: this.at(), outcome: 'not_found', message: 'not at the platform: sending' } });
  }

  /** Staff decided to try an item needing attention again: refusals start from zero, history stays. */
  requeued(clientTransactionId: string): QueueItem {
    const item = this.journal.transaction(() => {
      const current = this.queue.require(clientTransactionId);
      if (current.state !== 'needs_attention') {
        throw new AgentError(ErrorCodes.PAYMENT_STATE, `offline sale ${clientTransactionId} is ${current.state}: only a sale needing attention can be queued again`);
      }
      const updated = this.queue.update(clientTransactionId, {
        state: 'queued',
        attempt: { at: this.at(), outcome: 'requeued', message: 'queued again by staff' },
        resetRejections: true,
        message: null,
      });
      const row = this.journal.get(clientTransactionId);
      if (row?.state === 'needs_attention') this.journal.update(clientTransactionId, { state: 'offline_stored', message: 'offline sale queued again for upload' });
      return updated;
    });
    this.log.info({ clientTransactionId }, 'offline sale queued again by staff');
    this.publish(item, this.journal.get(clientTransactionId));
    return item;
  }

  private toAttention(clientTransactionId: string, message: string): QueueItem {
    const item = this.queue.update(clientTransactionId, { state: 'needs_attention', message });
    const row = this.journal.get(clientTransactionId);
    if (row !== undefined && OPEN_JOURNAL_STATES.has(row.state)) this.journal.update(clientTransactionId, { state: 'needs_attention', message });
    return item;
  }

  private attentionRaised(item: QueueItem): void {
    this.log.error({ clientTransactionId: item.clientTransactionId, rejections: item.rejections }, 'offline sale needs attention: upload keeps failing');
    this.bus.publish('offline.warning', { message: `sale ${item.clientTransactionId} needs attention: ${item.message ?? 'upload keeps failing'}`, clientTransactionId: item.clientTransactionId });
    this.publish(item, this.journal.get(item.clientTransactionId));
  }

  private publish(item: QueueItem, row?: JournalRow): void {
    this.bus.publish('offline.item', {
      clientTransactionId: item.clientTransactionId,
      state: item.state,
      amount: item.amount,
      currency: item.currency,
      ...(item.serverTransactionId !== undefined ? { serverTransactionId: item.serverTransactionId } : {}),
      ...(item.message !== undefined ? { message: item.message } : {}),
    });
    if (row === undefined) return;
    this.bus.publish('transaction.updated', transactionUpdated(row));
  }
}
