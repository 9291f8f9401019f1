import type { Database as Db } from 'better-sqlite3';
import type { TimerHandle, TimerSource } from '../../core/index.js';
import { isStorageError } from './write-failure.js';

/** The SQL function the card-data triggers call (registered on the journal's connection only). */
export const CARD_DATA_CLEARED_FN = 'journal_card_data_cleared';
/** How often, and how many times, a scrub a reader held up is tried again. */
const SCRUB_RETRY_MS = 500;
const SCRUB_RETRIES = 60;
/** Longest a hold (holdScrub) keeps cleared card data in the write-ahead log. */
export const SCRUB_HOLD_MAX_MS = 1_000;

/**
 * Makes a change that clears or replaces card data in `table.column` schedule a scrub of the
 * write-ahead log (Journal.scrub). Temporary triggers: per connection, no schema change.
 * On a connection without the journal's function (a read-only CLI connection) it does nothing.
 */
export function watchCardDataColumn(db: Db, table: string, column: string): void {
  try {
    db.prepare(`SELECT ${CARD_DATA_CLEARED_FN}()`);
  } catch {
    return;
  }
  db.exec(`
    CREATE TEMP TRIGGER IF NOT EXISTS card_data_update_${table} AFTER UPDATE OF ${column} ON main.${table}
      WHEN OLD.${column} IS NOT NULL AND NEW.${column} IS NOT OLD.${column} BEGIN SELECT ${CARD_DATA_CLEARED_FN}(); END;
    CREATE TEMP TRIGGER IF NOT EXISTS card_data_delete_${table} AFTER DELETE ON main.${table}
      WHEN OLD.${column} IS NOT NULL BEGIN SELECT ${CARD_DATA_CLEARED_FN}(); END;
  `);
}

/**
 * The scrub of the write-ahead log after card data is cleared or replaced (docs/journal.md,
 * "Journal", card data at rest): the card-data triggers call `cleared` inside the writing
 * statement; the scrub runs once the transaction is over, held back for an upload round,
 * and is tried again while a reader holds the log.
 */
export class CardDataScrub {
  /** Card data was cleared and the write-ahead log may still hold it. */
  pending = false;
  private scheduled = false;
  private timer: TimerHandle | undefined;
  private holds = 0;
  private holdTimer: TimerHandle | undefined;
  private retries = 0;

  constructor(
    private readonly db: Db,
    private readonly timers: TimerSource,
    /** What a scheduled scrub calls: the journal's `scrub`, so whoever watches that sees every one. */
    private readonly run: () => boolean,
  ) {
    db.function(CARD_DATA_CLEARED_FN, { deterministic: false }, () => {
      this.cleared();
      return null;
    });
  }

  /** Called by the card-data triggers inside the writing statement: scrub after the transaction. */
  cleared(): void {
    this.pending = true;
    if (this.holds > 0) {
      // Held (an upload round): one scrub when the hold ends, and never later than SCRUB_HOLD_MAX_MS.
      this.holdTimer ??= this.timers.setTimeout(() => {
        this.holdTimer = undefined;
        if (this.pending) this.run();
      }, SCRUB_HOLD_MAX_MS);
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.pending) this.run();
    });
  }

  /**
   * Holds the card-data scrub back until the returned release is called (once; later calls
   * do nothing), or SCRUB_HOLD_MAX_MS at most: an upload round clears the card data of every
   * sale it settles, each in its own turn, and one checkpoint for the round replaces one per
   * sale (docs/journal.md, "Journal", card data at rest). Holds nest.
   */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (this.holds > 0 || !this.pending) return;
      if (this.holdTimer !== undefined) this.timers.clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
      this.run();
    };
  }

  /**
   * Checkpoints the write-ahead log into the file and truncates it to zero bytes
   * (docs/journal.md, "Journal", card data at rest): with secure_delete the pages the
   * checkpoint writes hold zeros where the card data was, and the log's older page images
   * are gone. Never waits: a reader on an older snapshot makes it try again shortly.
   * Answers whether the log is empty now.
   */
  scrub(): boolean {
    if (!this.db.open) return false;
    if (this.db.inTransaction) {
      this.cleared();
      return false;
    }
    let done = false;
    this.db.pragma('busy_timeout = 0');
    try {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{
        busy: number;
        log: number;
        checkpointed: number;
      }>;
      done = r !== undefined && r.busy === 0;
    } catch (err) {
      // A reader holds the log (busy), or the disk cannot take the checkpoint now (full, I/O
      // error: "writes that fail"): the card data stays only in this 0600 file until the retry.
      if (
        (err as { code?: string }).code !== 'SQLITE_BUSY' &&
        (err as { code?: string }).code !== 'SQLITE_LOCKED' &&
        !isStorageError(err)
      )
        throw err;
    } finally {
      this.db.pragma('busy_timeout = 5000');
    }
    if (done) {
      this.pending = false;
      this.retries = 0;
      return true;
    }
    if (this.pending && this.timer === undefined && this.retries < SCRUB_RETRIES) {
      this.retries += 1;
      this.timer = this.timers.setTimeout(() => {
        this.timer = undefined;
        if (this.pending) this.run();
      }, SCRUB_RETRY_MS);
    }
    return false;
  }

  close(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.holdTimer !== undefined) this.timers.clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
  }
}
