import Database from 'better-sqlite3';
import type { Database as Db, Transaction } from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AgentError,
  ErrorCodes,
  requestContext,
  systemClock,
  type Logger,
  type TimerSource,
  type TimeSource,
} from '../../core/index.js';
import type { TransactionState } from '../api.js';
import { checkJournal, journalRefusal, markerFile } from './integrity.js';
import { journalMigrations, migrate, type Migration } from './migrations.js';
import { allowedPatch } from './moves.js';
import { useIncrementalVacuum } from './vacuum.js';
import { CardDataScrub, watchCardDataColumn } from './card-data-scrub.js';
import { KeptWrites, type JournalWriteStatus } from './kept-writes.js';
import {
  withoutPin,
  type DbRow,
  COLUMNS,
  toDb,
  fromDb,
  type JournalSummaryRow,
  DAY_ROWS_SQL,
  type SummaryDbRow,
  summaryFromDb,
  summaryOf,
  type ListOptions,
  listQuery,
} from './row-codec.js';
import { currentOperator } from './operator.js';
import { CARD_DATA_STATES, type JournalPatch, type JournalRow, type NewJournalRow } from './types.js';
import {
  isNoRoomError,
  isStorageError,
  isWriteAhead,
  mergePatches,
  openRefusal,
  overlay,
  unwritableError,
} from './write-failure.js';

export const JOURNAL_FILE = 'journal.sqlite';
export { DAY_ROWS_SQL, listQuery, type JournalSummaryRow, type ListOptions } from './row-codec.js';
export type { JournalWriteStatus } from './kept-writes.js';
export { SCRUB_HOLD_MAX_MS, watchCardDataColumn } from './card-data-scrub.js';

export interface JournalOptions {
  /** Directory of the database file (config.dataDir); created 0700 if missing. */
  dataDir: string;
  fileName?: string;
  migrations?: readonly Migration[];
  /**
   * The agent's clock, for created/updated timestamps and the retry of a card-data scrub a
   * reader held up (docs/architecture.md, "Time"); default the system clock. Without
   * timers, the system clock's are used for that retry.
   */
  clock?: Pick<TimeSource, 'wall'> & Partial<TimerSource>;
  /** Journals larger than this get the header, size and schema checks at open, not quick_check (integrity.ts). */
  maxCheckBytes?: number;
  /** Retries of writes SQLite refused (disk full): first delay, longest delay, how many. */
  writeRetry?: { baseMs?: number; capMs?: number; attempts?: number };
  /** Where a refused state move is logged (docs/journal.md, "Journal", state moves). */
  log?: Pick<Logger, 'warn'>;
  /** An older journal up to this size is switched to incremental vacuum at open (retention.ts, useIncrementalVacuum). */
  compactMaxBytes?: number;
}

/** Bytes the write probe allocates (and rolls back): the journal needs at least this much room. */
const PROBE_BYTES = 64 * 1024;

export class Journal {
  readonly db: Db;
  readonly file: string;
  /** `fn` in one transaction (BEGIN IMMEDIATE), or a savepoint inside the one running. */
  private readonly runInTransaction: Transaction<(fn: (db: Db) => unknown) => unknown>;
  private readonly clock: Pick<TimeSource, 'wall'>;
  private readonly timers: TimerSource;
  /** The write-ahead log's scrub after card data is cleared (card-data-scrub.ts). */
  private readonly scrubber: CardDataScrub;
  private readonly stmtGet;
  private readonly stmtFlags;
  private readonly stmtRelated;
  private readonly statements = new Map<string, ReturnType<Db['prepare']>>();
  /** Outcomes SQLite refused after a request left, kept in memory and written again (kept-writes.ts). */
  private readonly kept: KeptWrites;
  /** Patches SQLite refused after a request left, kept until written (row id -> patch, time). */
  private readonly deferred: Map<string, { patch: JournalPatch; at: string }>;
  /** Inside transaction(): SQLite may have rolled it back already, so db.inTransaction cannot say. */
  private transactionDepth = 0;
  /**
   * Rows whose kept patch a write inside transaction() carried: not overlaid while it runs,
   * dropped from memory only once it commits (a rollback must not lose what was kept).
   */
  private readonly writtenInTransaction = new Set<string>();
  private readonly log: Pick<Logger, 'warn'> | undefined;

  constructor(opts: JournalOptions) {
    this.log = opts.log;
    this.clock = opts.clock ?? systemClock();
    const c = opts.clock;
    const { setTimeout: set, clearTimeout: clear } = c ?? {};
    this.timers =
      set !== undefined && clear !== undefined
        ? { setTimeout: (fn, ms) => set.call(c, fn, ms), clearTimeout: (h) => clear.call(c, h) }
        : systemClock();
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    this.file = join(opts.dataDir, opts.fileName ?? JOURNAL_FILE);
    // Integrity at start (docs/journal.md, "Journal"): a damaged or emptied journal is
    // refused before anything opens it for writing, and kept as it is.
    const check = checkJournal(
      this.file,
      opts.maxCheckBytes !== undefined ? { maxCheckBytes: opts.maxCheckBytes } : {},
    );
    if (check.state === 'damaged' || check.state === 'emptied') throw journalRefusal(check);
    // Create the file 0600 before SQLite opens it: SQLite gives the -wal and -shm files the
    // main file's mode, so card data in flight is never readable by other users.
    try {
      closeSync(openSync(this.file, 'a', 0o600));
      chmodSync(this.file, 0o600);
    } catch (err) {
      if (isNoRoomError(err)) throw openRefusal(this.file, err);
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `cannot create the journal ${this.file}: ${(err as Error).message} (check dataDir)`,
        { cause: err },
      );
    }
    try {
      this.db = new Database(this.file);
    } catch (err) {
      if (isNoRoomError(err)) throw openRefusal(this.file, err);
      throw err;
    }
    // One transaction function for every call (better-sqlite3 passes the work through): making
    // one per call cost a few microseconds of each store and settled upload.
    const db = this.db;
    this.runInTransaction = db.transaction((fn: (db: Db) => unknown) => fn(db));
    try {
      // A new file gives freed pages back from its first table on (docs/journal.md, "Retention").
      if (Number(this.db.pragma('page_count', { simple: true })) === 0) this.db.pragma('auto_vacuum = INCREMENTAL');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('busy_timeout = 5000');
      // better-sqlite3 builds SQLite with a 16 MB page cache; a terminal's journal needs little.
      this.db.pragma('cache_size = -2000');
      // Freed cells and pages are zeroed, so cleared card data does not linger in the file.
      this.db.pragma('secure_delete = ON');
      migrate(this.db, opts.migrations ?? journalMigrations);
      // The write probe's table, kept empty: creating it in each probe changed the schema, which
      // made SQLite prepare every statement of the connection again after each sale start.
      this.db.exec('CREATE TABLE IF NOT EXISTS journal_write_probe (b BLOB)');
      useIncrementalVacuum(this.db, opts.log, opts.compactMaxBytes);
    } catch (err) {
      this.db.close();
      // A full disk at start (the log, the shared memory or a migration cannot be written): one
      // line naming the file and what to do, not SQLite's bare "disk I/O error"; nothing is removed.
      if (isNoRoomError(err)) throw openRefusal(this.file, err);
      throw err;
    }
    this.writeMarker();
    this.scrubber = new CardDataScrub(this.db, this.timers, () => this.scrub());
    this.kept = new KeptWrites({
      store: {
        open: () => this.db.open,
        busy: () => this.db.inTransaction || this.transactionDepth > 0,
        writeAll: (kept) =>
          this.db.transaction(() => {
            for (const [id, k] of kept) this.writePatch(id, k.patch);
          })(),
        touch: () =>
          this.db.exec(
            'UPDATE transactions SET updated_at = updated_at WHERE rowid = (SELECT max(rowid) FROM transactions)',
          ),
        probe: () => this.probe(),
      },
      clock: this.clock,
      timers: this.timers,
      retry: {
        baseMs: opts.writeRetry?.baseMs ?? 250,
        capMs: opts.writeRetry?.capMs ?? 10_000,
        attempts: opts.writeRetry?.attempts ?? 30,
      },
    });
    this.deferred = this.kept.patches;
    watchCardDataColumn(this.db, 'transactions', 'card_secret');
    // A stop between clearing card data and its scrub left it in the log: scrub now.
    this.scrub();
    this.stmtGet = this.db.prepare<[string], DbRow>('SELECT * FROM transactions WHERE client_id = ?');
    this.stmtFlags = this.db.prepare<[string], Pick<DbRow, 'kind' | 'state' | 'offline'>>(
      'SELECT kind, state, offline FROM transactions WHERE client_id = ?',
    );
    this.stmtRelated = this.db.prepare<[string], DbRow>(
      'SELECT * FROM transactions WHERE related_client_id = ? ORDER BY created_at, rowid',
    );
  }

  /** The marker says "a journal is kept here" (integrity.ts): written once, never removed by the agent. */
  private writeMarker(): void {
    const marker = markerFile(this.file);
    if (existsSync(marker)) return;
    const tmp = `${marker}.tmp`;
    const text = `${JSON.stringify({ journal: this.file, since: new Date(this.clock.wall()).toISOString(), note: 'the journal existed here: the agent refuses to start if it goes missing or empty (docs/operations.md, "Troubleshooting")' })}\n`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, marker);
    } catch (err) {
      this.db.close();
      if (isNoRoomError(err)) throw openRefusal(this.file, err);
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `cannot write the journal marker ${marker}: ${(err as Error).message} (check dataDir)`,
        { cause: err },
      );
    }
  }

  /** Card data was cleared and the write-ahead log may still hold it. */
  get scrubPending(): boolean {
    return this.scrubber.pending;
  }

  /** Holds the scrub back for an upload round (CardDataScrub.hold). */
  holdScrub(): () => void {
    return this.scrubber.hold();
  }

  /** Scrubs the write-ahead log now (CardDataScrub.scrub); whether it is empty. */
  scrub(): boolean {
    return this.scrubber.scrub();
  }

  private prepared(sql: string): ReturnType<Db['prepare']> {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Runs fn in one SQLite transaction (immediate: takes the write lock up front). A write
   * SQLite refused anywhere in it (the journal's own or a partner's, such as the offline
   * queue's) fails the whole transaction as JOURNAL_UNWRITABLE, whichever statement hit the
   * full disk first.
   */
  transaction<T>(fn: (db: Db) => T): T {
    this.transactionDepth += 1;
    const outermost = this.transactionDepth === 1;
    try {
      const result = this.runInTransaction.immediate(fn) as T;
      if (outermost) for (const id of this.writtenInTransaction) this.deferred.delete(id);
      return result;
    } catch (err) {
      if (isStorageError(err)) throw unwritableError(this.kept.failed(err), err);
      throw err;
    } finally {
      if (outermost) this.writtenInTransaction.clear();
      this.transactionDepth -= 1;
    }
  }

  insert(row: NewJournalRow): JournalRow {
    const at = new Date(this.clock.wall()).toISOString();
    // The operator is set once, at insert, from the work running now (operator.ts).
    const fields: Record<string, unknown> = {
      client_id: row.clientTransactionId,
      kind: row.kind,
      created_at: at,
      updated_at: at,
      operator: currentOperator(),
    };
    // The caller's reference is written once, with the row: a patch never changes it.
    if (row.reference !== undefined) fields.reference = row.reference;
    // Which call carried the row is fixed with it (types.ts, `via`).
    if (row.via !== undefined) fields.via = row.via;
    // So is the local-API request that made it (its log lines carry the same id).
    const request = requestContext();
    if (request !== undefined) fields.request_id = request.requestId;
    for (const [field, column] of Object.entries(COLUMNS) as Array<[keyof typeof COLUMNS, string]>) {
      const value = (row as Partial<Record<string, unknown>>)[field];
      if (value !== undefined) fields[column] = toDb(field, value);
    }
    if (row.cardSecret !== undefined && !CARD_DATA_STATES.has(row.state)) fields.card_secret = null;
    else if (row.cardSecret !== undefined && row.state === 'offline_stored')
      fields.card_secret = toDb('cardSecret', withoutPin(row.cardSecret));
    const names = Object.keys(fields);
    try {
      this.prepared(
        `INSERT INTO transactions (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`,
      ).run(fields);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new AgentError(
          ErrorCodes.PAYMENT_ID_CONFLICT,
          `a transaction with id ${row.clientTransactionId} exists already`,
          { cause: err },
        );
      }
      // A new row is written before anything happens: nothing is lost, the caller is refused.
      if (isStorageError(err)) throw unwritableError(this.kept.failed(err), err);
      throw err;
    }
    this.kept.wrote();
    return this.require(row.clientTransactionId);
  }

  get(clientTransactionId: string): JournalRow | undefined {
    const r = this.stmtGet.get(clientTransactionId);
    return r === undefined ? undefined : this.read(r);
  }

  /** A row as read, with the outcome kept in memory when SQLite refused its write. */
  private read(r: DbRow): JournalRow {
    const row = fromDb(r);
    const kept = this.writtenInTransaction.has(row.clientTransactionId)
      ? undefined
      : this.deferred.get(row.clientTransactionId);
    return kept === undefined ? row : overlay(row, kept.patch, kept.at);
  }

  /** Whether the journal takes writes now (KeptWrites.status). */
  writeStatus(): JournalWriteStatus {
    return this.kept.status();
  }

  /** Throws JOURNAL_UNWRITABLE while the row's latest change is only kept in memory (KeptWrites.requireWritten). */
  requireWritten(clientTransactionId?: string): void {
    this.kept.requireWritten(clientTransactionId);
  }

  /** Checks now whether the journal takes writes, as a sale start and /readyz ask (KeptWrites.retry). */
  retryWrites(): JournalWriteStatus {
    return this.kept.retry();
  }

  /** Allocates room for a few rows and rolls back: SQLite refuses it when the file cannot grow. */
  private probe(): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.prepared('INSERT INTO journal_write_probe VALUES (zeroblob(?))').run(PROBE_BYTES);
    } finally {
      // SQLITE_FULL may have rolled the transaction back already; a second ROLLBACK would hide it.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
  }

  require(clientTransactionId: string): JournalRow {
    const row = this.get(clientTransactionId);
    if (row === undefined) {
      throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no transaction ${clientTransactionId} in the journal`);
    }
    return row;
  }

  /** The row the platform knows by this server transaction id (the newest, should two carry it). */
  byServerId(serverTransactionId: string): JournalRow | undefined {
    const r = this.prepared(
      'SELECT * FROM transactions WHERE server_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
    ).get(serverTransactionId) as DbRow | undefined;
    if (r !== undefined) return this.read(r);
    for (const [id, kept] of this.deferred)
      if (kept.patch.serverTransactionId === serverTransactionId) return this.get(id);
    return undefined;
  }

  /**
   * Applies a patch; leaving the card-data states clears the card data in the same write.
   * When SQLite refuses the write (disk full: docs/journal.md, "Journal", writes that
   * fail) a write-ahead patch throws JOURNAL_UNWRITABLE, so its request never leaves; any
   * other (an outcome after the request left) is kept in memory, shown by every read and
   * retried with backoff, and the journal reports itself unwritable until it is written.
   */
  update(clientTransactionId: string, asked: JournalPatch): JournalRow {
    const patch = this.allowedMove(clientTransactionId, asked);
    const kept = this.deferred.get(clientTransactionId);
    const merged = mergePatches(kept?.patch, patch);
    try {
      this.writePatch(clientTransactionId, merged);
    } catch (err) {
      if (!isStorageError(err)) throw err;
      const failure = this.kept.failed(err);
      // Inside a caller's transaction (an offline store: journal row and queue item in one) the
      // caller's whole transaction fails instead: a row is never kept apart from its partner.
      if (isWriteAhead(patch) || this.transactionDepth > 0) throw unwritableError(failure, err);
      this.kept.keep(clientTransactionId, merged);
      return this.require(clientTransactionId);
    }
    // Inside transaction() the kept patch goes only once the whole transaction commits.
    if (this.transactionDepth > 0) this.writtenInTransaction.add(clientTransactionId);
    else this.deferred.delete(clientTransactionId);
    this.kept.wrote();
    return this.require(clientTransactionId);
  }

  /** The patch as the journal records it: a state move the rules refuse is left out (moves.ts). */
  private allowedMove(clientTransactionId: string, patch: JournalPatch): JournalPatch {
    return allowedPatch(
      typeof patch.state === 'string' ? this.flags(clientTransactionId) : undefined,
      clientTransactionId,
      patch,
      this.log,
    );
  }

  /**
   * The row's kind, state and offline flag as `get` shows them (an outcome kept in memory
   * counts), without reading the whole row: the state-move check of each update and the
   * bus listeners that only look at these read three columns, not the events and card data.
   */
  flags(clientTransactionId: string): Pick<JournalRow, 'kind' | 'state' | 'offline'> | undefined {
    if (this.deferred.has(clientTransactionId)) {
      const row = this.get(clientTransactionId);
      return row === undefined ? undefined : { kind: row.kind, state: row.state, offline: row.offline };
    }
    const r = this.stmtFlags.get(clientTransactionId);
    return r === undefined
      ? undefined
      : { kind: r.kind as JournalRow['kind'], state: r.state as TransactionState, offline: r.offline === 1 };
  }

  private writePatch(clientTransactionId: string, patch: JournalPatch): void {
    const sets: string[] = ['updated_at = @updated_at'];
    const params: Record<string, unknown> = {
      client_id: clientTransactionId,
      updated_at: new Date(this.clock.wall()).toISOString(),
    };
    for (const [field, column] of Object.entries(COLUMNS) as Array<[keyof typeof COLUMNS, string]>) {
      // A field the patch leaves out reads as undefined too: left as it is.
      const value = patch[field];
      if (value === undefined) continue;
      sets.push(`${column} = @${column}`);
      params[column] = toDb(field, value);
    }
    if (patch.state !== undefined && patch.state !== null && !CARD_DATA_STATES.has(patch.state)) {
      // Also when the patch set card data: SQLite takes the rightmost assignment of a column.
      sets.push('card_secret = @card_secret');
      params.card_secret = null;
    } else if (patch.state === 'offline_stored') {
      // Online PIN is meaningless offline: a stored offline sale never keeps a PIN block.
      if (patch.cardSecret !== undefined && patch.cardSecret !== null)
        params.card_secret = toDb('cardSecret', withoutPin(patch.cardSecret));
      else if (patch.cardSecret === undefined)
        sets.push("card_secret = json_remove(card_secret, '$.pinblock', '$.pinKsn', '$.pinblockFormat')");
    }
    // A row the journal does not have changes nothing here; update() says so when it reads the row back.
    this.prepared(`UPDATE transactions SET ${sets.join(', ')} WHERE client_id = @client_id`).run(params);
  }

  /** Operations (capture, cancel, refund) acting on a sale, oldest first. */
  related(saleClientTransactionId: string): JournalRow[] {
    return this.stmtRelated.all(saleClientTransactionId).map((r) => this.read(r));
  }

  list(opts: ListOptions = {}): JournalRow[] {
    if (opts.states !== undefined && opts.states.length === 0) return [];
    const { sql, params } = listQuery(opts);
    const rows = this.db
      .prepare<[Record<string, unknown>], DbRow>(sql)
      .all(params)
      .map((r) => this.read(r));
    // An outcome kept in memory may have moved a row out of the states asked for.
    const states = opts.states;
    return states === undefined || this.deferred.size === 0 ? rows : rows.filter((r) => states.includes(r.state));
  }

  /**
   * The rows made in [from, to) (ISO instants), with only the columns a summary needs
   * (docs/receipts.md, "End of day"): one range scan of the created_at index
   * (DAY_ROWS_SQL), never the events or card data. Outcomes kept in memory are applied.
   */
  rowsCreatedBetween(from: string, to: string): JournalSummaryRow[] {
    const rows = (this.prepared(DAY_ROWS_SQL).all({ from, to }) as SummaryDbRow[]).map(summaryFromDb);
    if (this.deferred.size === 0) return rows;
    return rows.map((r) => {
      if (!this.deferred.has(r.clientTransactionId)) return r;
      const full = this.get(r.clientTransactionId);
      return full === undefined ? r : summaryOf(full);
    });
  }

  inStates(states: readonly TransactionState[]): JournalRow[] {
    return this.list({ states }).reverse();
  }

  close(): void {
    this.kept.close();
    this.scrubber.close();
    if (this.db.open) this.db.close();
  }
}
