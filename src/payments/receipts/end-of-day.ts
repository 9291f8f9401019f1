import { AgentError, ErrorCodes } from '../../core/index.js';
import type { SaleMethod } from '../api.js';
import type { JournalSummaryRow } from '../journal/index.js';
import { minorDigits } from '../money.js';
import { merchantOf } from './merchant-name.js';
import type { EndOfDayFigures, EndOfDayLine, EndOfDayReport, ReceiptMerchant } from './types.js';
import { localTime } from './zone-time.js';

/**
 * The end-of-day totals of the rows made in one local day (docs/receipts.md, "End of
 * day"). Pure: the rows come from one indexed range query of the journal. Each row is
 * counted on the day it was made, in at most one figure, by its kind and state; sums are
 * integer minor units per currency (never added across currencies, never floats).
 */

type FigureName = Exclude<keyof EndOfDayFigures, 'net'>;

const IN_PROGRESS = new Set(['created', 'awaiting_customer', 'in_flight', 'pending', 'reversing']);

/** Which figure a row counts in; undefined: none (a web shop's order, an operation that did nothing, a capture-all call). */
export function figureOf(row: JournalSummaryRow): FigureName | undefined {
  if (row.state === 'needs_attention') return row.origin === 'web' ? undefined : 'needsAttention';
  if (IN_PROGRESS.has(row.state)) return row.origin === 'web' ? undefined : 'inProgress';
  if (row.kind === 'sale') {
    // A web shop's order is journaled only to refund it by web: not a sale of this terminal.
    if (row.origin === 'web') return undefined;
    if (row.state === 'offline_stored') return 'offlinePending';
    if (row.state === 'approved') return 'sales';
    // Charged, then given back in full: the sale counts, and so do the cancels or refunds that gave it back.
    if ((row.state === 'cancelled' || row.state === 'reversed') && row.cancelledAmount + row.refundedAmount > 0)
      return 'sales';
    return 'notCompleted';
  }
  if (row.state !== 'approved') return undefined;
  if (row.kind === 'refund') return 'refunds';
  if (row.kind === 'cancel') return 'cancels';
  // A capture-all call has no sale of its own (each sale it captured keeps its captured amount).
  return row.relatedClientTransactionId !== undefined ? 'captures' : undefined;
}

function add(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum))
    throw new AgentError(
      ErrorCodes.INTERNAL,
      "the day's total is beyond 2^53 minor units: it cannot be reported exactly",
    );
  return sum;
}

function emptyFigures(): EndOfDayFigures {
  const zero = () => ({ count: 0, amount: 0 });
  return {
    sales: zero(),
    refunds: zero(),
    cancels: zero(),
    captures: zero(),
    offlinePending: zero(),
    needsAttention: zero(),
    inProgress: zero(),
    notCompleted: zero(),
    net: 0,
  };
}

function count(f: EndOfDayFigures, name: FigureName, amount: number): void {
  f[name].count += 1;
  f[name].amount = add(f[name].amount, amount);
  if (name === 'sales') f.net = add(f.net, amount);
  if (name === 'refunds' || name === 'cancels') f.net = add(f.net, -amount);
}

function digitsOf(currency: string): number {
  try {
    return minorDigits(currency);
  } catch {
    return 0;
  }
}

/** Lines keyed by their own fields, created on first use, listed in a stable order. */
class Lines<K extends object> {
  private readonly map = new Map<string, K & EndOfDayLine>();
  at(key: K, currency: string): K & EndOfDayLine {
    const k = JSON.stringify([key, currency]);
    let line = this.map.get(k);
    if (line === undefined) {
      line = { ...key, currency, minorDigits: digitsOf(currency), ...emptyFigures() };
      this.map.set(k, line);
    }
    return line;
  }
  list(): Array<K & EndOfDayLine> {
    return [...this.map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  }
}

export interface EndOfDayInput {
  rows: readonly JournalSummaryRow[];
  date: string;
  timeZone: string;
  from: number;
  to: number;
  now: number;
  merchants: readonly ReceiptMerchant[];
  terminalId: string | undefined;
  /** The reader's locale the printer text is written in; default en-GB. */
  locale?: string;
}

export function endOfDay(input: EndOfDayInput): EndOfDayReport {
  const totals = new Lines<Record<never, never>>();
  const byMerchant = new Lines<{ merchantId: string | null; merchantName: string | null }>();
  const byMethod = new Lines<{ method: SaleMethod | null }>();
  const byOperator = new Lines<{ operator: string | null }>();
  const groups = new Lines<{
    merchantId: string | null;
    merchantName: string | null;
    method: SaleMethod | null;
    operator: string | null;
  }>();
  for (const row of input.rows) {
    const name = figureOf(row);
    if (name === undefined) continue;
    const m = merchantOf(row.merchantId, input.merchants);
    const merchant = { merchantId: m.id, merchantName: m.name };
    const method = row.method ?? null;
    const operator = row.operator ?? null;
    for (const line of [
      totals.at({}, row.currency),
      byMerchant.at(merchant, row.currency),
      byMethod.at({ method }, row.currency),
      byOperator.at({ operator }, row.currency),
      groups.at({ ...merchant, method, operator }, row.currency),
    ]) {
      count(line, name, row.amount);
    }
  }
  const fromLocal = localTime(input.from, input.timeZone);
  const toLocal = localTime(input.to, input.timeZone);
  return {
    date: input.date,
    timeZone: input.timeZone,
    locale: input.locale ?? 'en-GB',
    from: new Date(input.from).toISOString(),
    to: new Date(input.to).toISOString(),
    fromLocal: fromLocal.iso,
    // The day's end is the next day's 00:00 local.
    toLocal: toLocal.iso,
    generatedAt: new Date(input.now).toISOString(),
    generatedAtLocal: localTime(input.now, input.timeZone).iso,
    terminalId: input.terminalId ?? null,
    rows: input.rows.length,
    totals: totals.list(),
    byMerchant: byMerchant.list(),
    byMethod: byMethod.list(),
    byOperator: byOperator.list(),
    groups: groups.list(),
  };
}
