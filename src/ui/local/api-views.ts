import { type AllowedOperationsView, type TransactionView, formatAmount } from '../../payments/index.js';
import type {
  MerchantView,
  OfflineItemView,
  OfflineLevelsView,
  ApiAllowedOperations,
  ApiMerchant,
  ApiOfflineItem,
  ApiOfflineLevels,
  ApiOperation,
  ApiTransaction,
} from '../shared/index.js';

/**
 * Compile-time check that the engine's view and the wire type have the same fields: a field
 * added to TransactionView must be declared in wire-types.ts before it reaches the page.
 */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Expect<T extends true> = T;
export type TransactionFieldsOnTheWire = Expect<
  SameKeys<
    Omit<TransactionView, 'events'>,
    Omit<
      ApiTransaction,
      'events' | 'eventCount' | 'amountText' | 'capturedAmountText' | 'refundedAmountText' | 'cancelledAmountText'
    >
  >
>;

function safeFormat(minor: number, currency: string): string {
  try {
    return formatAmount(minor, currency);
  } catch {
    return `${minor} (minor units) ${currency}`;
  }
}

/** Large embedded images (the wallet's QR as a JPEG data URI) are left out: the page draws the QR itself. */
function stripImages(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripImages);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k === 'codeImage') continue;
      out[k] = stripImages(v);
    }
    return out;
  }
  return value;
}

export function apiTransaction(view: TransactionView, opts: { withEvents: boolean }): ApiTransaction {
  const { events, ...rest } = view;
  return {
    ...rest,
    amountText: safeFormat(view.amount, view.currency),
    capturedAmountText: safeFormat(view.capturedAmount, view.currency),
    refundedAmountText: safeFormat(view.refundedAmount, view.currency),
    cancelledAmountText: safeFormat(view.cancelledAmount, view.currency),
    eventCount: events.length,
    ...(opts.withEvents ? { events: events.map((e) => stripImages(e) as Record<string, unknown>) } : {}),
  };
}

export function apiAllowedOperations(view: AllowedOperationsView): ApiAllowedOperations {
  const op = (o: AllowedOperationsView['cancel']): ApiOperation => ({
    ...o,
    maxAmountText: safeFormat(o.maxAmount, view.currency),
  });
  return {
    cancel: op(view.cancel),
    refund: op(view.refund),
    capture: op(view.capture),
    currency: view.currency,
    fromPlatform: view.fromPlatform,
  };
}

/** Offline levels with the per-currency totals and limits also as text. */
export function apiOffline(levels: OfflineLevelsView): ApiOfflineLevels {
  const texts = (m: Record<string, number>): Record<string, string> =>
    Object.fromEntries(Object.entries(m).map(([currency, minor]) => [currency, safeFormat(minor, currency)]));
  return {
    ...levels,
    totalsText: texts(levels.totals),
    maxTotalText: texts(levels.maxTotal),
    floorLimitsText: texts(levels.floorLimits ?? {}),
  };
}

/**
 * An offline sale as the API answers it. Fields are picked one by one, so whatever else a
 * source hands over (history, card data) never reaches the page (docs/architecture.md, "Invariants" 4).
 */
export function apiOfflineItem(item: OfflineItemView): ApiOfflineItem {
  return {
    clientTransactionId: item.clientTransactionId,
    amount: item.amount,
    currency: item.currency,
    amountText: safeFormat(item.amount, item.currency),
    ...(item.maskedPan !== undefined ? { maskedPan: item.maskedPan } : {}),
    state: item.state,
    attempts: item.attempts,
    ...(item.lastMessage !== undefined ? { lastMessage: item.lastMessage } : {}),
    storedAt: item.storedAt,
    ...(item.serverTransactionId !== undefined ? { serverTransactionId: item.serverTransactionId } : {}),
    ...(item.merchantId !== undefined ? { merchantId: item.merchantId } : {}),
  };
}

/** A merchant as the API answers it: picked fields only, so a credential record can never leak its secret. */
export function apiMerchant(m: MerchantView): ApiMerchant {
  return {
    merchantName: m.merchantName,
    clientId: m.clientId,
    ...(m.merchantId !== undefined ? { merchantId: m.merchantId } : {}),
    default: m.default,
  };
}
