// How a journal row is stored: the columns, their encoding, the summary and list queries.
import type { TransactionState } from '../api.js';
import type { CardSecret, JournalPatch, JournalRow } from './types.js';

/** A PIN block is never kept with an offline sale (docs/journal.md, "Journal", card data lifetime). */
export function withoutPin(secret: CardSecret): CardSecret {
  const { pinblock: _pinblock, pinKsn: _pinKsn, pinblockFormat: _format, ...rest } = secret;
  return rest;
}

export interface DbRow {
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
export const COLUMNS = {
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

export function toDb(field: keyof typeof COLUMNS, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field === 'events') return JSON.stringify(value);
  if (field === 'cardSecret') return JSON.stringify(value);
  if (field === 'offline') return value === true ? 1 : 0;
  return value;
}

function opt<T extends string>(v: string | null): T | undefined {
  return v === null ? undefined : (v as T);
}

export function fromDb(r: DbRow): JournalRow {
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

export type SummaryDbRow = Pick<
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

export function summaryFromDb(r: SummaryDbRow): JournalSummaryRow {
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

export function summaryOf(r: JournalRow): JournalSummaryRow {
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
