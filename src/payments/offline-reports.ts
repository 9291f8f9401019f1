import { ErrorCodes, isAgentError, type Logger } from '../core/index.js';
import { watchCardDataColumn, type JournalRow } from './journal/index.js';
import type { PlatformRecord } from './records.js';
import { salePatchFromRecord } from './sale-record-patch.js';
import type { JournalWriter } from './journal-writer.js';

/** One answered upload: the sale, the platform's record of it, and the queue's own write of that result. */
export interface UploadResultWrite<T> {
  clientTransactionId: string;
  record: PlatformRecord;
  /** The queue's write (its item settled, its card data dropped); runs in the transaction, before the journal row moves. */
  queueWrite: () => T;
}

/**
 * What became of one settlement: the queue's answer and the journal row as the transaction
 * wrote it (undefined when the row had moved on and was left as it is), or the error that
 * undid this settlement alone.
 */
export type SettledUpload<T> = { queued: T; row: JournalRow | undefined } | { error: unknown };

/**
 * How the offline queue (src/offline/) reports what became of an offline sale; payments
 * applies the journal change, so it stays the only writer of journal rows
 * (docs/architecture.md, "Layers"). The reverse direction of `OfflineHook`.
 *
 * The queue's tables live in the journal's file. Each verb that changes a journal row takes
 * the queue's own write as a function and runs it inside the transaction payments opens,
 * before the journal change, so an upload's result is on disk in both tables before the
 * next step relies on it (docs/architecture.md, "Invariants"; docs/offline.md, "Offline and
 * payments"). No verb hands out the database.
 */
export interface OfflineSaleReports {
  /**
   * The platform has these uploaded sales (their uploads were answered, or lookups found
   * them): one durable transaction, each settlement in its own savepoint (one that cannot
   * be applied is undone alone and answered as its error), then `alsoWrite` (the queue's
   * next "sending" mark). A write SQLite refuses fails the whole call: none of it is on disk.
   */
  uploadsSettled<T, W = undefined>(
    settlements: ReadonlyArray<UploadResultWrite<T>>,
    alsoWrite?: () => W,
  ): { settled: Array<SettledUpload<T>>; also: W | undefined };
  /** An upload try was refused and the sale waits for its next one: the queue's write alone, the journal row as it is. */
  uploadFailed<T>(clientTransactionId: string, queueWrite: () => T): T;
  /** The upload keeps being refused, can never be sent or never looked up: staff must look at the sale. */
  needsAttention<T>(clientTransactionId: string, message: string, queueWrite: () => T): T;
  /** Staff put a sale needing attention back into the queue. */
  requeued<T>(clientTransactionId: string, queueWrite: () => T): T;
  /** After the transaction: the sale's journal row on the bus (`transaction.updated`). */
  announce(clientTransactionId: string): void;
  /** The same for a row the caller has as its transaction wrote it (no read). */
  announceRow(row: JournalRow): void;
  /** One card-data scrub for a whole upload round instead of one per sale (Journal.holdScrub); call the release when the round ends. */
  holdScrub(): () => void;
  /** Clearing card data from `table.column` of the journal's file schedules the journal's scrub of its write-ahead log. */
  watchCardData(table: string, column: string): void;
  /** The operators of these sales as their journal rows keep them (sales with none, or no row, are left out). */
  operatorsOf(clientTransactionIds: readonly string[]): Map<string, string>;
}

/** Journal states an offline sale's row is in until its upload is settled. */
const OPEN_OFFLINE_STATES: ReadonlySet<string> = new Set(['offline_stored', 'needs_attention']);

/**
 * The journal side of the offline queue's reports. Rows change through the journal's one
 * writer (docs/journal.md, "One write path"), quietly: offline tells the bus of a row after
 * its own `offline.item` (`announce`).
 */
export function offlineSaleReports(rows: JournalWriter, log: Logger): OfflineSaleReports {
  const journal = rows.journal;
  const announceRow = (row: JournalRow): void => void rows.announce(row.clientTransactionId);
  const settleRow = (clientTransactionId: string, record: PlatformRecord): JournalRow | undefined => {
    const row = journal.get(clientTransactionId);
    if (row === undefined) return undefined;
    if (!OPEN_OFFLINE_STATES.has(row.state)) {
      log.warn(
        { clientTransactionId, journalState: row.state },
        'offline upload settled a sale whose journal row moved on: journal left as it is',
      );
      return undefined;
    }
    return rows.update(clientTransactionId, salePatchFromRecord(row, record, 'offline_upload').patch, { quiet: true });
  };
  return {
    uploadsSettled(settlements, alsoWrite) {
      return rows.write(() => {
        const settled = settlements.map((s) => {
          try {
            // Its own savepoint: a result that cannot be applied is undone alone.
            return rows.write(() => {
              const queued = s.queueWrite();
              return { queued, row: settleRow(s.clientTransactionId, s.record) };
            });
          } catch (error) {
            // A write SQLite refused may have ended the whole transaction: then none of it is written.
            if (!isAgentError(error) || isAgentError(error, ErrorCodes.JOURNAL_UNWRITABLE)) throw error;
            return { error };
          }
        });
        return { settled, also: alsoWrite?.() };
      });
    },
    uploadFailed: (_clientTransactionId, queueWrite) => rows.write(() => queueWrite()),
    needsAttention(clientTransactionId, message, queueWrite) {
      return rows.write(() => {
        const queued = queueWrite();
        const row = journal.get(clientTransactionId);
        if (row !== undefined && OPEN_OFFLINE_STATES.has(row.state))
          rows.update(clientTransactionId, { state: 'needs_attention', message }, { quiet: true });
        return queued;
      });
    },
    requeued(clientTransactionId, queueWrite) {
      return rows.write(() => {
        const queued = queueWrite();
        const row = journal.get(clientTransactionId);
        if (row?.state === 'needs_attention')
          rows.update(
            clientTransactionId,
            { state: 'offline_stored', message: 'offline sale queued again for upload' },
            { quiet: true },
          );
        return queued;
      });
    },
    holdScrub: () => journal.holdScrub(),
    watchCardData: (table, column) => watchCardDataColumn(journal.db, table, column),
    operatorsOf(clientTransactionIds) {
      const out = new Map<string, string>();
      for (const id of clientTransactionIds) {
        const operator = journal.get(id)?.operator;
        if (operator !== undefined) out.set(id, operator);
      }
      return out;
    },
    announce(clientTransactionId) {
      const row = journal.get(clientTransactionId);
      if (row !== undefined) announceRow(row);
    },
    announceRow,
  };
}
