import type { EventBus } from '../events/index.js';
import type { Journal, JournalPatch, JournalRow, NewJournalRow } from './journal/index.js';
import { transactionUpdated } from './transaction-event.js';

/** How a changed row is announced once its write is on disk. */
export interface ChangeOptions {
  /**
   * Platform events this change journaled for the first time: the row is published once per
   * event (each carrying it), instead of once.
   */
  platformEvents?: ReadonlyArray<Record<string, unknown>>;
  /** Not published here: the event relay publishes what it applied itself (docs/payments.md, "Event relay"). */
  quiet?: boolean;
}

/** The rows one write changes; each is announced after the write commits. */
interface RowChanges {
  insert(row: NewJournalRow): JournalRow;
  update(clientTransactionId: string, patch: JournalPatch, opts?: ChangeOptions): JournalRow;
  /**
   * Publishes a row this write may not change (a sale whose operation moved), after the
   * commit, in the place of its first mention; a later update of it in the same write joins.
   */
  announce(clientTransactionId: string, opts?: ChangeOptions): JournalRow;
}

interface Change {
  row: JournalRow;
  platformEvents: Array<Record<string, unknown>>;
  /** Published at least once unless every change to it was quiet. */
  loud: boolean;
}

/**
 * The one way a journal row is written (docs/journal.md, "One write path"). A flow says
 * which rows change; after the write is on disk the writer publishes each changed row's
 * `transaction.updated` (one payload builder: transaction-event.ts) and hands each row to
 * `settled`, which resolves whoever waits for it once it is final. Publishing after the
 * commit means no listener ever sees a row a failed transaction rolled back.
 */
export class JournalWriter {
  /** The changes of the write running now; a write started inside it joins it. */
  private open: Map<string, Change> | undefined;
  /** Told of every changed row after its write: payments resolves whoever waits for it. */
  private settled: (row: JournalRow) => void = () => {};

  constructor(
    /** The row store it writes (its reads are free to everyone in payments). */
    readonly journal: Journal,
    private readonly bus: EventBus,
  ) {}

  /** Who is told of each changed row once it is written (one listener: payments' waiters). */
  afterWrite(settled: (row: JournalRow) => void): void {
    this.settled = settled;
  }

  /**
   * Several rows in one SQLite transaction (all or none on disk), announced after it
   * commits. A write SQLite refuses fails the whole transaction (JOURNAL_UNWRITABLE) and
   * nothing is announced. A partner's statement run inside `fn` (the offline queue's item
   * with its sale's row) is in the same transaction.
   */
  write<T>(fn: () => T): T {
    const outer = this.open;
    if (outer === undefined) return this.collect(() => this.journal.transaction(fn));
    // Inside another write: a savepoint. If it is undone, so is what it noted.
    const before = new Map([...outer].map(([id, c]) => [id, { ...c, platformEvents: [...c.platformEvents] }]));
    try {
      return this.journal.transaction(fn);
    } catch (err) {
      outer.clear();
      for (const [id, c] of before) outer.set(id, c);
      throw err;
    }
  }

  /**
   * One row, without a transaction of its own: an outcome SQLite refuses is kept in memory
   * and written again later (docs/journal.md, "Journal", writes that fail), and announced now.
   */
  update(clientTransactionId: string, patch: JournalPatch, opts: ChangeOptions = {}): JournalRow {
    return this.collect(() => this.changes().update(clientTransactionId, patch, opts));
  }

  insert(row: NewJournalRow): JournalRow {
    return this.collect(() => this.changes().insert(row));
  }

  /** The row as it stands, on the bus (with the write running now, if any, after its commit). */
  announce(clientTransactionId: string, opts: ChangeOptions = {}): JournalRow {
    return this.collect(() => this.changes().announce(clientTransactionId, opts));
  }

  private collect<T>(run: () => T): T {
    if (this.open !== undefined) return run();
    const open = new Map<string, Change>();
    this.open = open;
    let result: T;
    try {
      result = run();
    } finally {
      this.open = undefined;
    }
    // Only once on disk (or kept for a retry by the journal): listeners and waiters read what stays.
    for (const change of open.values()) {
      const row = change.row;
      if (change.loud) {
        if (change.platformEvents.length === 0) this.bus.publish('transaction.updated', transactionUpdated(row));
        for (const event of change.platformEvents)
          this.bus.publish('transaction.updated', transactionUpdated(row, event));
      }
      this.settled(row);
    }
    return result;
  }

  private changes(): RowChanges {
    const open = this.open as Map<string, Change>;
    const note = (row: JournalRow, opts: ChangeOptions): JournalRow => {
      const id = row.clientTransactionId;
      const change = open.get(id) ?? { row, platformEvents: [], loud: false };
      // A map keeps the first change's place: rows are announced in the order they first changed.
      open.set(id, change);
      change.row = row;
      change.loud ||= opts.quiet !== true;
      if (opts.quiet !== true && opts.platformEvents !== undefined) change.platformEvents.push(...opts.platformEvents);
      return row;
    };
    return {
      insert: (row) => note(this.journal.insert(row), {}),
      update: (id, patch, opts = {}) => note(this.journal.update(id, patch), opts),
      announce: (id, opts = {}) => note(this.journal.require(id), opts),
    };
  }
}
