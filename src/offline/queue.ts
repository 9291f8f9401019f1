import type { Database, Statement } from 'better-sqlite3';
import { AgentError, ErrorCodes, systemClock, type TimeSource } from '../core/index.js';
import { checkRequest } from '../platform/index.js';
import { processRequest, type ProcessRequest } from '../platform/index.js';
import { hasOfflineCounts, hasOfflineSchema } from './schema.js';
import {
  PENDING_STATES,
  QUEUE_STATES,
  STORED_STATES,
  type OfflineSale,
  type QueueItem,
  type QueueState,
  type QueueStats,
  type UploadAttempt,
} from './types.js';

interface ItemRow {
  client_id: string;
  merchant_id: string | null;
  amount: number;
  currency: string;
  client_date_time: string;
  masked_pan: string | null;
  scheme: string | null;
  entry_mode: string | null;
  body: string | null;
  state: string;
  rejections: number;
  tries: number;
  history: string;
  server_id: string | null;
  platform_status: string | null;
  message: string | null;
  stored_at: number;
  updated_at: number;
  last_try_at: number | null;
  /** The sale's operator, kept with the item when it was stored (schema version 3); absent in an older file. */
  operator?: string | null;
}

/** What the uploader needs of a pending item: the view plus the body to send. */
export interface PendingUpload {
  item: QueueItem;
  body: ProcessRequest;
  storedAtMs: number;
  lastTryAtMs: number | undefined;
}

/** A change of an item after an upload try; undefined fields stay as they are. */
export interface ItemUpdate {
  state?: QueueState;
  attempt?: UploadAttempt;
  countRejection?: boolean;
  /** Refusals start from zero again (staff re-queued the item). */
  resetRejections?: boolean;
  serverTransactionId?: string;
  platformStatus?: string;
  /** null clears the message. */
  message?: string | null;
  /** Deletes the card data (the platform has answered with a record). */
  dropBody?: boolean;
}

/** Oldest history lines are dropped beyond this; `tries` keeps the full count. */
const HISTORY_LIMIT = 100;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The item as the queue shows it; the operator only in a list (`withOperator`), as the list and the export show it. */
function view(r: ItemRow, withOperator = false): QueueItem {
  return {
    clientTransactionId: r.client_id,
    ...(r.merchant_id !== null ? { merchantId: r.merchant_id } : {}),
    amount: r.amount,
    currency: r.currency,
    clientDateTime: r.client_date_time,
    ...(r.masked_pan !== null ? { maskedPan: r.masked_pan } : {}),
    ...(r.scheme !== null ? { scheme: r.scheme } : {}),
    ...(r.entry_mode !== null ? { entryMode: r.entry_mode } : {}),
    state: r.state as QueueState,
    rejections: r.rejections,
    tries: r.tries,
    history: JSON.parse(r.history) as UploadAttempt[],
    ...(r.server_id !== null ? { serverTransactionId: r.server_id } : {}),
    ...(r.platform_status !== null ? { platformStatus: r.platform_status } : {}),
    ...(r.message !== null ? { message: r.message } : {}),
    storedAt: iso(r.stored_at),
    updatedAt: iso(r.updated_at),
    ...(r.last_try_at !== null ? { lastTryAt: iso(r.last_try_at) } : {}),
    holdsCardData: r.body !== null,
    ...(withOperator && r.operator !== undefined && r.operator !== null ? { operator: r.operator } : {}),
  };
}

function inList(states: readonly QueueState[]): string {
  return states.map((s) => `'${s}'`).join(', ');
}

/**
 * The oldest stored item, ties by rowid: one seek of the (state, stored_at) index per stored
 * state, then the earliest of those few rows, instead of sorting every stored item. Built
 * where it is used (the statement cache keeps it), so nothing is computed at module load.
 */
function oldestSql(): string {
  return `SELECT client_id, stored_at FROM (${STORED_STATES.map(
    (s) =>
      `SELECT * FROM (SELECT client_id, stored_at, rowid AS r FROM offline_queue WHERE state = '${s}' ORDER BY stored_at, rowid LIMIT 1)`,
  ).join(' UNION ALL ')}) ORDER BY stored_at, r LIMIT 1`;
}

export interface ListQueueOptions {
  states?: readonly QueueState[];
  /**
   * The client id of the last item of the page before: the items after it in the list's
   * order (stored_at, rowid), so a sale stored meanwhile never shifts a page
   * (docs/local-api.md, "Paging"). An id the queue does not hold is refused.
   */
  after?: string;
  limit?: number;
}

/** Where a page starts: the (stored_at, rowid) of the item named by `after`. */
interface Cursor {
  at: number;
  rowid: number;
}

/**
 * The SELECT of a list or page (exported so a test can ask SQLite how it runs it).
 *
 * With a limit, one arm per state, each a seek of the (state, stored_at) index reading at
 * most `limit` rows, merged in the list's order: `state IN (…)` over several states made
 * SQLite scan the whole table and sort it, so a page of 100 read every uploaded sale the
 * queue keeps (docs/performance.md, "Quality targets", scale). Without a limit (exports) the plain
 * query, read one row at a time by `iterate`.
 */
export function listQuery(opts: {
  states: readonly QueueState[];
  cursor?: Cursor | undefined;
  limit?: number | undefined;
}): { sql: string; params: Record<string, number> } {
  const params: Record<string, number> =
    opts.cursor !== undefined ? { at: opts.cursor.at, rowid: opts.cursor.rowid } : {};
  // Row values: SQLite seeks the index to stored_at >= @at and steps past the few rows of the same millisecond.
  const after = (q: string): string =>
    opts.cursor !== undefined ? ` AND (${q}stored_at, ${q}rowid) > (@at, @rowid)` : '';
  const select = (from: string): string => `SELECT q.* FROM ${from} q`;
  if (opts.limit === undefined) {
    return {
      sql: `${select('offline_queue')} WHERE q.state IN (${inList(opts.states)})${after('q.')} ORDER BY q.stored_at, q.rowid`,
      params,
    };
  }
  const limit = Math.max(0, Math.floor(opts.limit));
  // No states asked: an arm that matches nothing keeps the SQL valid.
  // Stryker disable next-line StringLiteral: any name that is not a queue state matches nothing, as '' does
  const arms = (opts.states.length > 0 ? opts.states : ['']).map(
    (s) =>
      `SELECT * FROM (SELECT rowid AS page_rowid, * FROM offline_queue WHERE state = '${s}'${after('')} ORDER BY stored_at, rowid LIMIT ${limit})`,
  );
  return {
    sql: `${select(`(${arms.join(' UNION ALL ')})`)} ORDER BY q.stored_at, q.page_rowid LIMIT ${limit}`,
    params,
  };
}

/**
 * The offline queue table (src/offline/schema.ts) on the connection of the journal's file.
 * Reads work on a read-only connection too (the CLI). A write that must be atomic with a
 * journal change runs inside the transaction payments opens for it (`OfflineHook.store`,
 * the verbs of `OfflineSaleReports`); the queue's own writes of several items at once
 * (marks) are one transaction of their own.
 */
export class OfflineQueue {
  private readonly statements = new Map<string, Statement>();
  /** Whether offline_counts exists; only `true` is kept (an old read-only file may be upgraded by the agent meanwhile). */
  private counts = false;

  constructor(
    readonly db: Database,
    /** Stored and updated times (docs/architecture.md, "Time"). */
    private readonly clock: Pick<TimeSource, 'wall'> = systemClock(),
  ) {}

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    // Stryker disable next-line ConditionalExpression: a statement prepared again reads and writes the same (only slower); never preparing fails every test
    if (s === undefined) {
      s = this.db.prepare(sql);
      // Stryker disable next-line all: a cache never kept prepares each statement again, which reads and writes the same (only slower)
      this.statements.set(sql, s);
    }
    return s;
  }

  /** The trigger-kept counts (schema 2) when the database has them; else the queue is aggregated. */
  private hasCounts(): boolean {
    // Stryker disable next-line ConditionalExpression: asking again each time answers the same (only slower); never asking is caught by the counts test
    if (!this.counts) this.counts = hasOfflineCounts(this.db);
    return this.counts;
  }

  /** False on a database where the agent never created the queue (read-only CLI on an old file). */
  exists(): boolean {
    return hasOfflineSchema(this.db);
  }

  /**
   * Stores an offline sale. Call it inside the transaction that moves the journal row to
   * `offline_stored`; it throws (rolling that transaction back) on a body that could never
   * be uploaded, so a sale is never approved without a valid upload on disk.
   */
  insert(sale: OfflineSale): QueueItem {
    const { row } = sale;
    const body = checkRequest(processRequest, { ...sale.body, offlineTransaction: true }, 'offline upload');
    const mismatch =
      body.clientNewTransactionId !== row.clientTransactionId
        ? 'clientNewTransactionId'
        : body.authorizationAmount.amount !== row.amount || body.authorizationAmount.currency !== row.currency
          ? 'authorizationAmount'
          : body.clientDateTime !== row.clientDateTime
            ? 'clientDateTime'
            : body.instrument.card?.encryptedData === undefined
              ? 'instrument.card.encryptedData'
              : undefined;
    if (mismatch !== undefined) {
      throw new AgentError(
        ErrorCodes.OFFLINE_BODY_MISMATCH,
        `offline sale ${row.clientTransactionId} not stored: its upload body does not match the journal (${mismatch})`,
      );
    }
    // Online PIN is meaningless offline: the PIN can only be verified by the issuer, online.
    // A card that asked for it is not taken offline (docs/offline.md, "Offline queue"),
    // and so no PIN block is ever stored for an upload.
    if (body.pinblock !== undefined || body.pinblockFormat !== undefined) {
      throw new AgentError(
        ErrorCodes.OFFLINE_NOT_ELIGIBLE,
        'the card asked for online PIN, which only the card issuer can verify online: it cannot be taken offline',
      );
    }
    const at = this.clock.wall();
    const fields = {
      client_id: row.clientTransactionId,
      merchant_id: row.merchantId ?? null,
      amount: row.amount,
      currency: row.currency,
      client_date_time: row.clientDateTime,
      // Stryker disable next-line OptionalChaining: a body without a card was refused above (no card data)
      masked_pan: row.maskedPan ?? body.instrument.card?.maskedPan ?? null,
      // Stryker disable next-line OptionalChaining: a body without a card was refused above (no card data)
      scheme: row.scheme ?? body.instrument.card?.scheme ?? null,
      entry_mode: row.entryMode ?? body.entryMode ?? null,
      body: JSON.stringify(body),
      operator: row.operator ?? null,
      at,
    };
    try {
      this.stmt(
        `INSERT INTO offline_queue (client_id, merchant_id, amount, currency, client_date_time, masked_pan, scheme, entry_mode, body, state, stored_at, updated_at, operator)
         VALUES (@client_id, @merchant_id, @amount, @currency, @client_date_time, @masked_pan, @scheme, @entry_mode, @body, 'queued', @at, @at, @operator)`,
      ).run(fields);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new AgentError(ErrorCodes.PAYMENT_STATE, `offline sale ${row.clientTransactionId} is stored already`, {
          cause: err,
        });
      }
      throw err;
    }
    // The row as written, without reading it back (what `get` would answer inside this transaction).
    return view({
      ...fields,
      state: 'queued',
      rejections: 0,
      tries: 0,
      history: '[]',
      server_id: null,
      platform_status: null,
      message: null,
      stored_at: at,
      updated_at: at,
      last_try_at: null,
    });
  }

  /** Whether the item is in the queue (cheaper than `get`: no row to decode). */
  has(clientTransactionId: string): boolean {
    return this.stmt('SELECT 1 FROM offline_queue WHERE client_id = ?').get(clientTransactionId) !== undefined;
  }

  get(clientTransactionId: string): QueueItem | undefined {
    const r = this.stmt('SELECT * FROM offline_queue WHERE client_id = ?').get(clientTransactionId) as
      ItemRow | undefined;
    return r === undefined ? undefined : view(r);
  }

  require(clientTransactionId: string): QueueItem {
    const item = this.get(clientTransactionId);
    if (item === undefined)
      throw new AgentError(ErrorCodes.OFFLINE_NOT_FOUND, `no offline sale ${clientTransactionId} in the queue`);
    return item;
  }

  /** Oldest first; with `limit` and `after` one page of the list (docs/local-api.md, "Paging"). */
  list(opts: ListQueueOptions = {}): QueueItem[] {
    const { sql, params } = this.listSql(opts);
    return (this.db.prepare(sql).all(params) as ItemRow[]).map((r) => view(r, true));
  }

  /**
   * The same items as `list`, one at a time as SQLite reads them: an export of a queue that
   * has kept every uploaded sale for years never holds them all in memory (docs/performance.md,
   * "Quality targets", scale). One statement, so one consistent snapshot.
   */
  *iterate(opts: Omit<ListQueueOptions, 'limit'> = {}): Generator<QueueItem> {
    const { sql, params } = this.listSql(opts);
    for (const r of this.db.prepare(sql).iterate(params) as IterableIterator<ItemRow>) yield view(r, true);
  }

  /**
   * How many items `list` would give without a limit: from the trigger-kept counts when
   * nothing is skipped, else one count of the index range after the cursor per state.
   */
  count(opts: Omit<ListQueueOptions, 'limit'> = {}): number {
    const states = this.checkedStates(opts.states);
    const cursor = this.cursor(opts.after);
    if (cursor === undefined) {
      const counts = this.stateCounts();
      return states.reduce((n, s) => n + counts[s], 0);
    }
    const stmt = this.stmt(
      'SELECT COUNT(*) AS n FROM offline_queue WHERE state = @state AND (stored_at, rowid) > (@at, @rowid)',
    );
    return states.reduce(
      (n, state) => n + (stmt.get({ state, at: cursor.at, rowid: cursor.rowid }) as { n: number }).n,
      0,
    );
  }

  private checkedStates(asked: readonly QueueState[] | undefined): readonly QueueState[] {
    // No states asked: `IN ()` matches nothing, so no case of its own.
    const states = asked ?? QUEUE_STATES;
    for (const s of states)
      if (!QUEUE_STATES.includes(s))
        throw new AgentError(ErrorCodes.INPUT_INVALID, `unknown queue state ${String(s).slice(0, 30)}`);
    return states;
  }

  private cursor(after: string | undefined): Cursor | undefined {
    if (after === undefined) return undefined;
    const row = this.stmt('SELECT stored_at, rowid FROM offline_queue WHERE client_id = ?').get(after) as
      { stored_at: number; rowid: number } | undefined;
    if (row === undefined)
      throw new AgentError(
        ErrorCodes.INPUT_INVALID,
        `after: no offline sale ${after.slice(0, 80)} in the queue (pass the \`next\` of the page before)`,
      );
    return { at: row.stored_at, rowid: row.rowid };
  }

  private listSql(opts: ListQueueOptions): { sql: string; params: Record<string, number> } {
    const states = this.checkedStates(opts.states);
    const cursor = this.cursor(opts.after);
    return listQuery({ states, cursor, limit: opts.limit });
  }

  /** Items waiting for upload, oldest first, with their bodies. */
  pending(): PendingUpload[] {
    const rows = this.stmt(
      `SELECT * FROM offline_queue WHERE state IN (${inList(PENDING_STATES)}) ORDER BY stored_at, rowid`,
    ).all() as ItemRow[];
    const out: PendingUpload[] = [];
    for (const r of rows) {
      if (r.body === null) continue;
      out.push({
        item: view(r),
        body: JSON.parse(r.body) as ProcessRequest,
        storedAtMs: r.stored_at,
        lastTryAtMs: r.last_try_at ?? undefined,
      });
    }
    return out;
  }

  pendingCount(): number {
    return (
      this.stmt(`SELECT COUNT(*) AS n FROM offline_queue WHERE state IN (${inList(PENDING_STATES)})`).get() as {
        n: number;
      }
    ).n;
  }

  /**
   * What counts towards the limits: every sale not yet confirmed by the platform. Read
   * inside a store's transaction, so what it says is what that transaction would commit against.
   */
  stats(): QueueStats {
    const sums = (
      this.hasCounts()
        ? this.stmt(
            `SELECT currency, SUM(n) AS n, SUM(total) AS total FROM offline_counts WHERE state IN (${inList(STORED_STATES)}) AND n > 0 GROUP BY currency`,
          )
        : this.stmt(
            `SELECT currency, COUNT(*) AS n, SUM(amount) AS total FROM offline_queue WHERE state IN (${inList(STORED_STATES)}) GROUP BY currency`,
          )
    ).all() as Array<{ currency: string; n: number; total: number }>;
    const totals: Record<string, number> = {};
    let count = 0;
    for (const s of sums) {
      totals[s.currency] = s.total;
      count += s.n;
    }
    const oldest = this.stmt(oldestSql()).get() as { client_id: string; stored_at: number } | undefined;
    return {
      count,
      totals,
      ...(oldest !== undefined
        ? { oldest: { clientTransactionId: oldest.client_id, storedAtMs: oldest.stored_at } }
        : {}),
    };
  }

  /**
   * Stored items (not yet confirmed) with their store time, for the age checks; with
   * `storedAtOrBefore` only those stored by then, so a check reads the old items, not the queue.
   */
  storedAges(
    opts: { storedAtOrBefore?: number } = {},
  ): Array<{ clientTransactionId: string; storedAtMs: number; state: QueueState }> {
    const until = opts.storedAtOrBefore ?? Number.MAX_SAFE_INTEGER;
    const rows = this.stmt(
      `SELECT client_id, stored_at, state FROM offline_queue WHERE state IN (${inList(STORED_STATES)}) AND stored_at <= ? ORDER BY stored_at, rowid`,
    ).all(until) as Array<{
      client_id: string;
      stored_at: number;
      state: string;
    }>;
    return rows.map((r) => ({
      clientTransactionId: r.client_id,
      storedAtMs: r.stored_at,
      state: r.state as QueueState,
    }));
  }

  /** Store time of the first stored item stored after `atMs`, if any. */
  firstStoredAfter(atMs: number): number | undefined {
    const row = this.stmt(
      `SELECT MIN(stored_at) AS at FROM offline_queue WHERE state IN (${inList(STORED_STATES)}) AND stored_at > ?`,
    ).get(atMs) as { at: number | null };
    return row.at ?? undefined;
  }

  stateCounts(): Record<QueueState, number> {
    const counts = Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Record<QueueState, number>;
    const sql = this.hasCounts()
      ? 'SELECT state, SUM(n) AS n FROM offline_counts GROUP BY state'
      : 'SELECT state, COUNT(*) AS n FROM offline_queue GROUP BY state';
    const rows = this.stmt(sql).all() as Array<{ state: string; n: number }>;
    for (const r of rows)
      if ((QUEUE_STATES as readonly string[]).includes(r.state)) counts[r.state as QueueState] = r.n;
    return counts;
  }

  /** Applies an upload outcome to one item; call inside a transaction when the journal changes with it. */
  update(clientTransactionId: string, u: ItemUpdate): QueueItem {
    const current = this.stmt('SELECT history FROM offline_queue WHERE client_id = ?').get(clientTransactionId) as
      { history: string } | undefined;
    if (current === undefined)
      throw new AgentError(ErrorCodes.OFFLINE_NOT_FOUND, `no offline sale ${clientTransactionId} in the queue`);
    const at = this.clock.wall();
    let history = current.history;
    if (u.attempt !== undefined) {
      const list = JSON.parse(history) as UploadAttempt[];
      list.push(u.attempt);
      history = JSON.stringify(list.slice(-HISTORY_LIMIT));
    }
    this.stmt(
      `UPDATE offline_queue SET
         state = COALESCE(@state, state),
         history = @history,
         rejections = CASE WHEN @reset = 1 THEN 0 ELSE rejections + @rejection END,
         server_id = COALESCE(@server_id, server_id),
         platform_status = COALESCE(@platform_status, platform_status),
         message = CASE WHEN @set_message = 1 THEN @message ELSE message END,
         body = CASE WHEN @drop_body = 1 THEN NULL ELSE body END,
         updated_at = @at
       WHERE client_id = @client_id`,
    ).run({
      client_id: clientTransactionId,
      state: u.state ?? null,
      history,
      rejection: u.countRejection === true ? 1 : 0,
      reset: u.resetRejections === true ? 1 : 0,
      at,
      server_id: u.serverTransactionId ?? null,
      platform_status: u.platformStatus ?? null,
      set_message: u.message !== undefined ? 1 : 0,
      message: u.message ?? null,
      drop_body: u.dropBody === true ? 1 : 0,
    });
    return this.require(clientTransactionId);
  }

  /**
   * Marks items as possibly sent, all in one durable write, before their requests leave;
   * answers the ids it marked (those still waiting for upload).
   */
  markUploading(clientTransactionIds: readonly string[]): string[] {
    // Stryker disable next-line ConditionalExpression: an empty list marks nothing either way; the guard only spares taking the write lock
    if (clientTransactionIds.length === 0) return [];
    const at = this.clock.wall();
    const stmt = this.stmt(
      `UPDATE offline_queue SET state = 'uploading', tries = tries + 1, last_try_at = @at, updated_at = @at WHERE client_id = @id AND state IN (${inList(PENDING_STATES)})`,
    );
    return this.db
      .transaction(() => clientTransactionIds.filter((id) => stmt.run({ id, at }).changes === 1))
      .immediate();
  }

  /**
   * Moves the try time of items marked ahead to now, in one durable write, without counting
   * another try: their requests leave later than their mark (mark-ahead.ts, MARK_FRESH_MS).
   * Answers the ids it changed (those still `uploading`).
   */
  refreshMarks(clientTransactionIds: readonly string[]): string[] {
    // Stryker disable next-line ConditionalExpression: an empty list changes nothing either way; the guard only spares taking the write lock
    if (clientTransactionIds.length === 0) return [];
    const at = this.clock.wall();
    const stmt = this.stmt(
      "UPDATE offline_queue SET last_try_at = @at, updated_at = @at WHERE client_id = @id AND state = 'uploading'",
    );
    return this.db
      .transaction(() => clientTransactionIds.filter((id) => stmt.run({ id, at }).changes === 1))
      .immediate();
  }

  /**
   * Undoes `markUploading` for queued items marked ahead whose request never started (the
   * round ended first): back to `queued` with the try and its time as they were, in one
   * write. Only for items that were `queued` when marked: the mark said "may have been sent",
   * and nothing was.
   */
  unmarkUnsent(items: ReadonlyArray<{ clientTransactionId: string; lastTryAtMs: number | undefined }>): void {
    // Stryker disable next-line ConditionalExpression: an empty list changes nothing either way; the guard only spares taking the write lock
    if (items.length === 0) return;
    const at = this.clock.wall();
    const stmt = this.stmt(
      "UPDATE offline_queue SET state = 'queued', tries = MAX(0, tries - 1), last_try_at = @last_try_at, updated_at = @at WHERE client_id = @id AND state = 'uploading'",
    );
    this.db
      .transaction(() => {
        for (const i of items) stmt.run({ id: i.clientTransactionId, last_try_at: i.lastTryAtMs ?? null, at });
      })
      .immediate();
  }
}
