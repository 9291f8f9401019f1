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
  type TimerHandle,
  type TimerSource,
  type TimeSource,
} from '../../core/index.js';
import type { TransactionState } from '../api.js';
import { checkJournal, journalRefusal, markerFile } from './integrity.js';
import { journalMigrations, migrate, type Migration } from './migrations.js';
import { moveAllowed } from './moves.js';
import { useIncrementalVacuum } from './vacuum.js';
import { currentOperator } from './operator.js';
import { CARD_DATA_STATES, type CardSecret, type JournalPatch, type JournalRow, type NewJournalRow } from './types.js';
import {
  describeWriteFailure,
  isNoRoomError,
  isStorageError,
  isWriteAhead,
  mergePatches,
  openRefusal,
  overlay,
  unwritableError,
  type WriteFailure,
} from './write-failure.js';

export const JOURNAL_FILE = 'journal.sqlite';

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

/** Whether the journal takes writes now (docs/journal.md, "Journal", writes that fail). */
export interface JournalWriteStatus {
  writable: boolean;
  /** Outcomes kept in memory until the journal takes them. */
  pendingWrites: number;
  code?: string;
  reason?: string;
  since?: string;
}

/** Bytes the write probe allocates (and rolls back): the journal needs at least this much room. */
const PROBE_BYTES = 64 * 1024;

/** The SQL function the card-data triggers call (registered on the journal's connection only). */
const CARD_DATA_CLEARED_FN = 'journal_card_data_cleared';
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

/** A PIN block is never kept with an offline sale (docs/journal.md, "Journal", card data lifetime). */
function withoutPin(secret: CardSecret): CardSecret {
  const { pinblock: _pinblock, pinKsn: _pinKsn, pinblockFormat: _format, ...rest } = secret;
  return rest;
}

interface DbRow {
  client_id: string;
  kind: string;
  merchant_id: string | null;
  amount: number;
  currency: string;
  method: string | null;
  scenario: string | null;
  state: string;
  related_client_id: string | null;
  entry_mode: string | null;
  masked_pan: string | null;
  scheme: string | null;
  platform_status: string | null;
  server_id: string | null;
  events: string;
  qr_code: string | null;
  qr_expire: string | null;
  captured_amount: number;
  refunded_amount: number;
  cancelled_amount: number;
  attempts: number;
  client_date_time: string;
  cancel_reason: string | null;
  offline: number;
  message: string | null;
  card_secret: string | null;
  origin: string | null;
  created_at: string;
  updated_at: string;
  operator: string | null;
  reference: string | null;
  via: string | null;
  request_id: string | null;
}

/** JournalRow field -> column, for inserts and patches (a fixed list: no SQL from input). */
const COLUMNS = {
  merchantId: 'merchant_id',
  amount: 'amount',
  currency: 'currency',
  method: 'method',
  scenario: 'scenario',
  state: 'state',
  relatedClientTransactionId: 'related_client_id',
  entryMode: 'entry_mode',
  maskedPan: 'masked_pan',
  scheme: 'scheme',
  platformStatus: 'platform_status',
  serverTransactionId: 'server_id',
  events: 'events',
  qrCode: 'qr_code',
  qrExpireTime: 'qr_expire',
  capturedAmount: 'captured_amount',
  refundedAmount: 'refunded_amount',
  cancelledAmount: 'cancelled_amount',
  attempts: 'attempts',
  clientDateTime: 'client_date_time',
  cancelReason: 'cancel_reason',
  offline: 'offline',
  message: 'message',
  cardSecret: 'card_secret',
  origin: 'origin',
} as const satisfies Record<keyof JournalPatch, string>;

function toDb(field: keyof typeof COLUMNS, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field === 'events') return JSON.stringify(value);
  if (field === 'cardSecret') return JSON.stringify(value);
  if (field === 'offline') return value === true ? 1 : 0;
  return value;
}

function opt<T extends string>(v: string | null): T | undefined {
  return v === null ? undefined : (v as T);
}

function fromDb(r: DbRow): JournalRow {
  return {
    clientTransactionId: r.client_id,
    kind: r.kind as JournalRow['kind'],
    merchantId: opt(r.merchant_id),
    amount: r.amount,
    currency: r.currency,
    method: opt(r.method),
    scenario: opt(r.scenario),
    state: r.state as TransactionState,
    relatedClientTransactionId: opt(r.related_client_id),
    entryMode: opt(r.entry_mode),
    maskedPan: opt(r.masked_pan),
    scheme: opt(r.scheme),
    platformStatus: opt(r.platform_status),
    serverTransactionId: opt(r.server_id),
    events: JSON.parse(r.events) as Array<Record<string, unknown>>,
    qrCode: opt(r.qr_code),
    qrExpireTime: opt(r.qr_expire),
    capturedAmount: r.captured_amount,
    refundedAmount: r.refunded_amount,
    cancelledAmount: r.cancelled_amount,
    attempts: r.attempts,
    clientDateTime: r.client_date_time,
    cancelReason: opt(r.cancel_reason),
    offline: r.offline === 1,
    message: opt(r.message),
    cardSecret: r.card_secret === null ? undefined : (JSON.parse(r.card_secret) as CardSecret),
    ...(r.origin === 'web' ? { origin: 'web' as const } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.operator !== null ? { operator: r.operator } : {}),
    ...(r.reference !== null ? { reference: r.reference } : {}),
    ...(r.via === 'qrTerminal' || r.via === 'web' ? { via: r.via } : {}),
    ...(r.request_id !== null ? { requestId: r.request_id } : {}),
  };
}

/** The columns of a journal row a day's summary reads (no events, no card data). */
export type JournalSummaryRow = Pick<
  JournalRow,
  | 'clientTransactionId'
  | 'kind'
  | 'merchantId'
  | 'amount'
  | 'currency'
  | 'method'
  | 'state'
  | 'relatedClientTransactionId'
  | 'cancelledAmount'
  | 'refundedAmount'
  | 'cancelReason'
  | 'offline'
  | 'createdAt'
> &
  Pick<Partial<JournalRow>, 'origin' | 'operator'>;

/**
 * The rows made in a range of created_at: a range search of the index transactions_created
 * (journals reach 100,000 rows; test/payments/end-of-day.test.ts checks the plan).
 */
export const DAY_ROWS_SQL =
  'SELECT client_id, kind, merchant_id, amount, currency, method, state, related_client_id, cancelled_amount, refunded_amount, cancel_reason, offline, origin, operator, created_at FROM transactions WHERE created_at >= @from AND created_at < @to';

type SummaryDbRow = Pick<
  DbRow,
  | 'client_id'
  | 'kind'
  | 'merchant_id'
  | 'amount'
  | 'currency'
  | 'method'
  | 'state'
  | 'related_client_id'
  | 'cancelled_amount'
  | 'refunded_amount'
  | 'cancel_reason'
  | 'offline'
  | 'origin'
  | 'operator'
  | 'created_at'
>;

function summaryFromDb(r: SummaryDbRow): JournalSummaryRow {
  return {
    clientTransactionId: r.client_id,
    kind: r.kind as JournalRow['kind'],
    merchantId: opt(r.merchant_id),
    amount: r.amount,
    currency: r.currency,
    method: opt(r.method),
    state: r.state as TransactionState,
    relatedClientTransactionId: opt(r.related_client_id),
    cancelledAmount: r.cancelled_amount,
    refundedAmount: r.refunded_amount,
    cancelReason: opt(r.cancel_reason),
    offline: r.offline === 1,
    createdAt: r.created_at,
    ...(r.origin === 'web' ? { origin: 'web' as const } : {}),
    ...(r.operator !== null ? { operator: r.operator } : {}),
  };
}

function summaryOf(r: JournalRow): JournalSummaryRow {
  const {
    clientTransactionId,
    kind,
    merchantId,
    amount,
    currency,
    method,
    state,
    relatedClientTransactionId,
    cancelledAmount,
    refundedAmount,
    cancelReason,
    offline,
    createdAt,
  } = r;
  return {
    clientTransactionId,
    kind,
    merchantId,
    amount,
    currency,
    method,
    state,
    relatedClientTransactionId,
    cancelledAmount,
    refundedAmount,
    cancelReason,
    offline,
    createdAt,
    ...(r.origin !== undefined ? { origin: r.origin } : {}),
    ...(r.operator !== undefined ? { operator: r.operator } : {}),
  };
}

export interface ListOptions {
  /** Inclusive lower bound of created_at (ISO). */
  from?: string;
  /** Exclusive upper bound of created_at (ISO). */
  to?: string;
  states?: readonly TransactionState[];
  kind?: JournalRow['kind'];
  /** Only rows this operator made (a paired register sees its own, docs/registers.md). */
  operator?: string;
  /** Rows listed after this one in the list's order (newest first): the next page (docs/local-api.md, "Paging"). */
  after?: { createdAt: string; clientTransactionId: string };
  /** Exclusive lower bound of updated_at (ISO): bounded by the (state, updated_at) index. */
  updatedAfter?: string;
  /** Rows carrying exactly this caller reference (docs/local-api.md, "Caller reference"). */
  reference?: string;
  limit?: number;
}

/** The SELECT of Journal.list (exported so a test can ask SQLite how it runs it). */
export function listQuery(opts: ListOptions): { sql: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (opts.from !== undefined) {
    where.push('created_at >= @from');
    params.from = opts.from;
  }
  if (opts.to !== undefined) {
    where.push('created_at < @to');
    params.to = opts.to;
  }
  if (opts.updatedAfter !== undefined) {
    where.push('updated_at > @updatedAfter');
    params.updatedAfter = opts.updatedAfter;
  }
  if (opts.kind !== undefined) {
    where.push('kind = @kind');
    params.kind = opts.kind;
  }
  if (opts.operator !== undefined) {
    where.push('operator = @operator');
    params.operator = opts.operator;
  }
  if (opts.after !== undefined) {
    // Keyset paging in the list's own order (created_at, rowid): a page never repeats or skips a row when new ones arrive.
    where.push(
      '(created_at < @afterAt OR (created_at = @afterAt AND rowid < (SELECT rowid FROM transactions WHERE client_id = @afterId)))',
    );
    params.afterAt = opts.after.createdAt;
    params.afterId = opts.after.clientTransactionId;
  }
  if (opts.reference !== undefined) {
    where.push('reference = @reference');
    params.reference = opts.reference;
  }
  if (opts.states !== undefined) {
    const names = opts.states.map((s, i) => {
      params[`s${i}`] = s;
      return `@s${i}`;
    });
    where.push(`state IN (${names.join(', ')})`);
  }
  const limit = opts.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(opts.limit))}` : '';
  const sql = `SELECT * FROM transactions${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC${limit}`;
  return { sql, params };
}

/**
 * The write-ahead transaction journal (docs/journal.md, "Journal"): one SQLite file in the data directory,
 * mode 0600, WAL with synchronous=FULL so that a committed row survives a power cut.
 * Every operation is inserted before its request leaves and updated with the answer.
 * Card data is cleared automatically when a row leaves the states that need it, and then
 * scrubbed from the file's free space and the write-ahead log. A damaged or emptied file
 * is refused at open (integrity.ts).
 */
export class Journal {
  readonly db: Db;
  readonly file: string;
  /** `fn` in one transaction (BEGIN IMMEDIATE), or a savepoint inside the one running. */
  private readonly runInTransaction: Transaction<(fn: (db: Db) => unknown) => unknown>;
  private readonly clock: Pick<TimeSource, 'wall'>;
  private readonly timers: TimerSource;
  private scrubScheduled = false;
  private scrubTimer: TimerHandle | undefined;
  private scrubHolds = 0;
  private scrubHoldTimer: TimerHandle | undefined;
  private scrubRetries = 0;
  /** Card data was cleared and the write-ahead log may still hold it. */
  scrubPending = false;
  private readonly stmtGet;
  private readonly stmtFlags;
  private readonly stmtRelated;
  private readonly statements = new Map<string, ReturnType<Db['prepare']>>();
  /** Patches SQLite refused after a request left, kept until written (row id -> patch, time). */
  private readonly deferred = new Map<string, { patch: JournalPatch; at: string }>();
  private writeFailure: WriteFailure | undefined;
  private retryTimer: TimerHandle | undefined;
  private retryAttempt = 0;
  /** Inside transaction(): SQLite may have rolled it back already, so db.inTransaction cannot say. */
  private transactionDepth = 0;
  /**
   * Rows whose kept patch a write inside transaction() carried: not overlaid while it runs,
   * dropped from memory only once it commits (a rollback must not lose what was kept).
   */
  private readonly writtenInTransaction = new Set<string>();
  private readonly retry: { baseMs: number; capMs: number; attempts: number };
  private readonly log: Pick<Logger, 'warn'> | undefined;

  constructor(opts: JournalOptions) {
    this.log = opts.log;
    this.retry = {
      baseMs: opts.writeRetry?.baseMs ?? 250,
      capMs: opts.writeRetry?.capMs ?? 10_000,
      attempts: opts.writeRetry?.attempts ?? 30,
    };
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
    this.db.function(CARD_DATA_CLEARED_FN, { deterministic: false }, () => {
      this.cardDataCleared();
      return null;
    });
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

  /** Called by the card-data triggers inside the writing statement: scrub after the transaction. */
  private cardDataCleared(): void {
    this.scrubPending = true;
    if (this.scrubHolds > 0) {
      // Held (an upload round): one scrub when the hold ends, and never later than SCRUB_HOLD_MAX_MS.
      this.scrubHoldTimer ??= this.timers.setTimeout(() => {
        this.scrubHoldTimer = undefined;
        if (this.scrubPending) this.scrub();
      }, SCRUB_HOLD_MAX_MS);
      return;
    }
    if (this.scrubScheduled) return;
    this.scrubScheduled = true;
    setImmediate(() => {
      this.scrubScheduled = false;
      if (this.scrubPending) this.scrub();
    });
  }

  /**
   * Holds the card-data scrub back until the returned release is called (once; later calls
   * do nothing), or SCRUB_HOLD_MAX_MS at most: an upload round clears the card data of every
   * sale it settles, each in its own turn, and one checkpoint for the round replaces one per
   * sale (docs/journal.md, "Journal", card data at rest). Holds nest.
   */
  holdScrub(): () => void {
    this.scrubHolds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.scrubHolds -= 1;
      if (this.scrubHolds > 0 || !this.scrubPending) return;
      if (this.scrubHoldTimer !== undefined) this.timers.clearTimeout(this.scrubHoldTimer);
      this.scrubHoldTimer = undefined;
      this.scrub();
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
      this.cardDataCleared();
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
      this.scrubPending = false;
      this.scrubRetries = 0;
      return true;
    }
    if (this.scrubPending && this.scrubTimer === undefined && this.scrubRetries < SCRUB_RETRIES) {
      this.scrubRetries += 1;
      this.scrubTimer = this.timers.setTimeout(() => {
        this.scrubTimer = undefined;
        if (this.scrubPending) this.scrub();
      }, SCRUB_RETRY_MS);
    }
    return false;
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
      if (isStorageError(err)) throw unwritableError(this.failed(err), err);
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
      if (isStorageError(err)) throw unwritableError(this.failed(err), err);
      throw err;
    }
    this.wrote();
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

  /**
   * Whether the journal takes writes (docs/journal.md, "Journal", writes that fail):
   * false from a write SQLite refused until the outcomes kept in memory are written and a
   * probe write succeeds.
   */
  writeStatus(): JournalWriteStatus {
    const f = this.writeFailure;
    if (f === undefined) return { writable: true, pendingWrites: this.deferred.size };
    return { writable: false, pendingWrites: this.deferred.size, code: f.code, reason: f.reason, since: f.since };
  }

  /**
   * Throws JOURNAL_UNWRITABLE while the row's latest change is only kept in memory (tried
   * once more first): write-ahead for the sale a request acts on (docs/journal.md,
   * "Journal", writes that fail). A capture, cancel or refund must not leave while the disk
   * still shows the sale in flight: after a kill, recovery would take that sale's outcome
   * for unknown and, with its lookup failing, reverse money the agent itself moved on.
   * Without an id: every row (a capture of all authorizations acts on all sales).
   */
  requireWritten(clientTransactionId?: string): void {
    const kept = (): boolean =>
      clientTransactionId === undefined ? this.deferred.size > 0 : this.deferred.has(clientTransactionId);
    if (!kept()) return;
    this.retryWrites();
    if (!kept()) return;
    throw unwritableError(
      this.writeFailure ?? describeWriteFailure({ code: 'SQLITE_FULL' }, new Date(this.clock.wall()).toISOString()),
    );
  }

  /**
   * Checks now whether the journal takes writes, as a sale start and /readyz ask: the writes
   * kept in memory are tried again, or, when there are none, a probe allocates room for a
   * few rows and rolls back (SQLite refuses it when the file cannot grow).
   */
  retryWrites(): JournalWriteStatus {
    if (!this.db.open || this.db.inTransaction) return this.writeStatus();
    if (this.writeFailure !== undefined) {
      this.flushDeferred();
      return this.writeStatus();
    }
    try {
      this.probe();
    } catch (err) {
      if (!isStorageError(err)) throw err;
      this.failed(err);
    }
    return this.writeStatus();
  }

  private failed(err: unknown): WriteFailure {
    this.writeFailure ??= describeWriteFailure(err, new Date(this.clock.wall()).toISOString());
    this.scheduleRetry();
    return this.writeFailure;
  }

  /** A write went through: outcomes kept in memory follow at once. */
  private wrote(): void {
    if (this.writeFailure !== undefined || this.deferred.size > 0) this.flushDeferred();
  }

  private flushDeferred(): void {
    // Inside another transaction (an offline store) the probe cannot run: the next write or the timer flushes.
    if (this.db.inTransaction || this.transactionDepth > 0) return;
    try {
      // All kept outcomes in one transaction: the rows of one answer (an operation and its
      // sale) reach the disk together or not at all, never half of them.
      const kept = [...this.deferred];
      if (kept.length > 0) {
        this.db.transaction(() => {
          for (const [id, k] of kept) this.writePatch(id, k.patch);
        })();
        for (const [id, k] of kept) if (this.deferred.get(id) === k) this.deferred.delete(id);
      }
      if (this.deferred.size === 0) {
        // Nothing kept proved it: one real commit (a file-size limit or an I/O error lets a
        // rolled-back probe through), then room for a few rows.
        if (kept.length === 0)
          this.db.exec(
            'UPDATE transactions SET updated_at = updated_at WHERE rowid = (SELECT max(rowid) FROM transactions)',
          );
        this.probe();
      }
    } catch (err) {
      if (!isStorageError(err)) throw err;
      this.scheduleRetry();
      return;
    }
    this.writeFailure = undefined;
    this.retryAttempt = 0;
    if (this.retryTimer !== undefined) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
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

  /**
   * Retries with backoff. While outcomes are kept in memory they are tried for as long as it
   * takes (at the longest delay once the attempts are used up): an answer the platform gave
   * must reach the disk once space is freed, whether or not anyone starts a sale. With
   * nothing kept, the retries are bounded; then a sale start or /readyz tries again (retryWrites).
   */
  private scheduleRetry(): void {
    if (this.retryTimer !== undefined || !this.db.open) return;
    if (this.retryAttempt >= this.retry.attempts && this.deferred.size === 0) return;
    const delay = Math.min(this.retry.capMs, this.retry.baseMs * 2 ** Math.min(this.retryAttempt, 30));
    this.retryAttempt += 1;
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = undefined;
      try {
        if (this.db.open && this.writeFailure !== undefined) this.flushDeferred();
      } catch {
        // Not a storage fault (never expected): the next write, sale start or /readyz tries again.
      }
    }, delay);
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
      const failure = this.failed(err);
      // Inside a caller's transaction (an offline store: journal row and queue item in one) the
      // caller's whole transaction fails instead: a row is never kept apart from its partner.
      if (isWriteAhead(patch) || this.transactionDepth > 0) throw unwritableError(failure, err);
      this.deferred.set(clientTransactionId, { patch: merged, at: new Date(this.clock.wall()).toISOString() });
      this.scheduleRetry();
      return this.require(clientTransactionId);
    }
    // Inside transaction() the kept patch goes only once the whole transaction commits.
    if (this.transactionDepth > 0) this.writtenInTransaction.add(clientTransactionId);
    else this.deferred.delete(clientTransactionId);
    this.wrote();
    return this.require(clientTransactionId);
  }

  /**
   * The patch as the journal records it (docs/journal.md, "Journal", state moves;
   * moves.ts): a state move the rules refuse is logged and left out with the message that
   * describes it, the rest (events, platform status, amounts) is written; a refused move to
   * `in_flight` throws instead, so the request it would announce never leaves.
   */
  private allowedMove(clientTransactionId: string, patch: JournalPatch): JournalPatch {
    const to = patch.state;
    if (typeof to !== 'string') return patch;
    const row = this.flags(clientTransactionId);
    if (row === undefined || moveAllowed(row.kind, row.state, to, typeof patch.platformStatus === 'string'))
      return patch;
    this.log?.warn(
      { clientTransactionId, kind: row.kind, from: row.state, to },
      'journal refused a state move: the row keeps its state',
    );
    if (to === 'in_flight') {
      throw new AgentError(
        ErrorCodes.PAYMENT_STATE,
        `transaction ${clientTransactionId} is ${row.state}: it is not sent again`,
        {
          details: { clientTransactionId, state: row.state },
        },
      );
    }
    const { state: _state, message: _message, ...rest } = patch;
    return rest;
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
    if (this.retryTimer !== undefined) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.scrubTimer !== undefined) this.timers.clearTimeout(this.scrubTimer);
    this.scrubTimer = undefined;
    if (this.scrubHoldTimer !== undefined) this.timers.clearTimeout(this.scrubHoldTimer);
    this.scrubHoldTimer = undefined;
    if (this.db.open) this.db.close();
  }
}
