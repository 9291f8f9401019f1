import type { Database } from 'better-sqlite3';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { JournalPatch, JournalRow } from '../payments/journal/index.js';
import type { TransactionRecord } from '../platform/schemas/responses.js';
import type { OfflineQueue } from './queue.js';
import type { AttemptOutcome, QueueItem, QueueState } from './types.js';

/** What the uploader needs of the journal (src/payments/journal). */
export interface UploadJournal {
  transaction<T>(fn: (db: Database) => T): T;
  get(clientTransactionId: string): JournalRow | undefined;
  update(clientTransactionId: string, patch: JournalPatch): JournalRow;
}

/** Card sale statuses that mean the platform refused the sale (DESIGN.md: card sale status). */
const DECLINED_STATUSES: ReadonlySet<string> = new Set(['Refused', 'Declined', 'Failed']);

/** Journal states an offline sale's row is in until its upload is settled. */
const OPEN_JOURNAL_STATES: ReadonlySet<string> = new Set(['offline_stored', 'needs_attention']);

export type SettledAs = 'uploaded' | 'declined_after_upload';

export function settledAs(record: TransactionRecord): SettledAs {
  return DECLINED_STATUSES.has(record.transactionStatus) ? 'declined_after_upload' : 'uploaded';
}

/** The refusal reason the platform put into the record's events, when it gave one. */
function refusalMessage(record: TransactionRecord): string | undefined {
  for (let i = record.events.length - 1; i >= 0; i--) {
    const e = record.events[i];
    if (e !== undefined && typeof e.result === 'string' && DECLINED_STATUSES.has(e.result) && typeof e.resultMessage === 'string') return e.resultMessage.slice(0, 200);
  }
  return undefined;
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
    const declinedWhy = as === 'declined_after_upload' ? `declined after upload: ${refusalMessage(record) ?? record.transactionStatus}` : undefined;
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
        const patch: JournalPatch = {
          state: as === 'uploaded' ? 'approved' : 'declined',
          serverTransactionId: record.serverTransactionId,
          platformStatus: record.transactionStatus,
          events: record.events as Array<Record<string, unknown>>,
          message: declinedWhy ?? null,
          offline: true,
        };
        if (record.transactionStatus === 'Captured') patch.capturedAmount = row.amount;
        this.journal.update(clientTransactionId, patch);
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
    this.publish(item, as === 'uploaded' ? 'approved' : 'declined');
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

  private toAttention(clientTransactionId: string, message: string): QueueItem {
    const item = this.queue.update(clientTransactionId, { state: 'needs_attention', message });
    const row = this.journal.get(clientTransactionId);
    if (row !== undefined && OPEN_JOURNAL_STATES.has(row.state)) this.journal.update(clientTransactionId, { state: 'needs_attention', message });
    return item;
  }

  private attentionRaised(item: QueueItem): void {
    this.log.error({ clientTransactionId: item.clientTransactionId, rejections: item.rejections }, 'offline sale needs attention: upload keeps failing');
    this.bus.publish('offline.warning', { message: `sale ${item.clientTransactionId} needs attention: ${item.message ?? 'upload keeps failing'}`, clientTransactionId: item.clientTransactionId });
    this.publish(item, 'needs_attention');
  }

  private publish(item: QueueItem, journalState?: string): void {
    this.bus.publish('offline.item', {
      clientTransactionId: item.clientTransactionId,
      state: item.state,
      amount: item.amount,
      currency: item.currency,
      ...(item.serverTransactionId !== undefined ? { serverTransactionId: item.serverTransactionId } : {}),
      ...(item.message !== undefined ? { message: item.message } : {}),
    });
    if (journalState === undefined) return;
    this.bus.publish('transaction.updated', {
      clientTransactionId: item.clientTransactionId,
      ...(item.serverTransactionId !== undefined ? { serverTransactionId: item.serverTransactionId } : {}),
      kind: 'sale',
      status: journalState,
      amount: item.amount,
      currency: item.currency,
      method: 'card',
      ...(item.message !== undefined ? { message: item.message } : {}),
    });
  }
}
