import type { Database } from 'better-sqlite3';
import type { Logger } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import type { Journal, JournalRow } from './journal/index.js';
import type { PlatformRecord } from './records.js';
import { salePatchFromRecord } from './sale-record-patch.js';
import { transactionUpdated } from './transaction-event.js';

/**
 * How the offline queue (src/offline/) reports what became of an offline sale; payments
 * applies the journal change, so it stays the only writer of journal rows
 * (docs/architecture.md, "Layers" and "Offline queue"). The reverse direction of
 * `OfflineHook`. The queue table lives in the journal's database: the report and the
 * queue's own write go in one `transaction`, so an upload's result is on disk, in both
 * tables, before the next step relies on it (docs/architecture.md, "Invariants").
 */
export interface OfflineSaleReports {
  /** The journal's database; the offline queue table lives in it. */
  readonly db: Database;
  /** Runs `fn` in one SQLite transaction with the journal (the queue's write goes in it). */
  transaction<T>(fn: (db: Database) => T): T;
  /**
   * The platform has the uploaded sale (its upload was answered, or a lookup found it);
   * `record` is its answer. Returns the changed journal row, or undefined when the row has
   * moved on from waiting for its upload (it is left as it is).
   */
  uploadSettled(clientTransactionId: string, record: PlatformRecord): JournalRow | undefined;
  /** The upload keeps being refused or can never be sent: staff must look at the sale. */
  needsAttention(clientTransactionId: string, message: string): void;
  /** Staff put a sale needing attention back into the queue. */
  requeued(clientTransactionId: string): void;
  /** After the transaction: the sale's journal row on the bus (`transaction.updated`). */
  announce(clientTransactionId: string): void;
  /** The same for a row the caller has as its transaction wrote it (no read). */
  announceRow(row: JournalRow): void;
  /** One card-data scrub for a whole upload round instead of one per sale (Journal.holdScrub); call the release when the round ends. */
  holdScrub(): () => void;
}

/** Journal states an offline sale's row is in until its upload is settled. */
const OPEN_OFFLINE_STATES: ReadonlySet<string> = new Set(['offline_stored', 'needs_attention']);

/** The journal side of the offline queue's reports. */
export function offlineSaleReports(journal: Journal, bus: EventBus, log: Logger): OfflineSaleReports {
  const announceRow = (row: JournalRow): void => {
    bus.publish('transaction.updated', transactionUpdated(row));
  };
  return {
    get db() {
      return journal.db;
    },
    transaction: (fn) => journal.transaction(fn),
    uploadSettled(clientTransactionId, record) {
      const row = journal.get(clientTransactionId);
      if (row === undefined) return undefined;
      if (!OPEN_OFFLINE_STATES.has(row.state)) {
        log.warn(
          { clientTransactionId, journalState: row.state },
          'offline upload settled a sale whose journal row moved on: journal left as it is',
        );
        return undefined;
      }
      return journal.update(clientTransactionId, salePatchFromRecord(row, record, 'offline_upload').patch);
    },
    needsAttention(clientTransactionId, message) {
      const row = journal.get(clientTransactionId);
      if (row !== undefined && OPEN_OFFLINE_STATES.has(row.state))
        journal.update(clientTransactionId, { state: 'needs_attention', message });
    },
    requeued(clientTransactionId) {
      const row = journal.get(clientTransactionId);
      if (row?.state === 'needs_attention')
        journal.update(clientTransactionId, {
          state: 'offline_stored',
          message: 'offline sale queued again for upload',
        });
    },
    holdScrub: () => journal.holdScrub(),
    announce(clientTransactionId) {
      const row = journal.get(clientTransactionId);
      if (row !== undefined) announceRow(row);
    },
    announceRow,
  };
}
