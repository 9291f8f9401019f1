import type { TransactionState } from './api.js';
import type { QrInfo } from './api.js';
import { isKnownCurrency, minorDigits } from './money.js';

/**
 * Reading the platform's transaction records (docs/platform-contract.md, "Tolerance of
 * answers", and "Decisions where the spec is silent" on status values and card sale
 * statuses). Records are
 * read leniently: unknown statuses are kept as they came.
 */

export type PlatformRecord = Record<string, unknown> & {
  transactionStatus?: unknown;
  serverTransactionId?: unknown;
  events?: unknown;
};

/** The record's status as sent, when it is a non-empty string (compared case-insensitively everywhere: classifyStatus). */
export function recordStatus(record: PlatformRecord): string | undefined {
  return typeof record.transactionStatus === 'string' && record.transactionStatus.trim() !== ''
    ? record.transactionStatus
    : undefined;
}

/** The server's id, when it is a non-empty string (absent, null or another type reads as unknown). */
export function recordServerId(record: PlatformRecord): string | undefined {
  return typeof record.serverTransactionId === 'string' && record.serverTransactionId.trim() !== ''
    ? record.serverTransactionId
    : undefined;
}

export function recordEvents(record: PlatformRecord): Array<Record<string, unknown>> {
  return Array.isArray(record.events)
    ? record.events.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
    : [];
}

const PENDING = new Set(['initialized', 'pending', 'processing', 'inprogress']);
const CHARGED = new Set(['accepted', 'captured', 'authorized', 'approved', 'paid', 'success', 'succeeded']);
const REFUSED = new Set(['refused', 'declined', 'rejected']);
const CANCELLED = new Set(['cancelled', 'canceled', 'reversed', 'voided']);

export type StatusClass = 'pending' | 'charged' | 'refused' | 'cancelled' | 'failed' | 'expired' | 'other';

/** Status values are compared case-insensitively (the platform writes `cancelled` in lower case, `Accepted` capitalised). */
export function classifyStatus(status: string | undefined): StatusClass {
  if (status === undefined) return 'other';
  const s = status.trim().toLowerCase();
  if (PENDING.has(s)) return 'pending';
  if (CHARGED.has(s)) return 'charged';
  if (REFUSED.has(s)) return 'refused';
  if (CANCELLED.has(s)) return 'cancelled';
  if (s === 'failed' || s === 'error') return 'failed';
  if (s === 'expired') return 'expired';
  return 'other';
}

/**
 * A status word the agent does not know (`Completed`, `Settled`, ...): the platform said
 * something, but not what the money did (docs/platform-contract.md, "Tolerance of answers",
 * status values). Never read as declined or as nothing charged: shown as it is, the sale
 * needs attention and is followed until the platform says a word the agent knows.
 */
export function isUnknownStatus(status: string | undefined): status is string {
  return status !== undefined && classifyStatus(status) === 'other';
}

/** What staff are told of a sale whose status the agent does not know (the same words on the page, the CLI and the bus). */
export function unknownStatusMessage(status: string): string {
  return `the platform says ${status}: check before handing over goods`;
}

/**
 * The status says the sale is captured (`Captured` in any casing): a card sale the platform
 * captured needs no capture and is refunded, not cancelled (docs/platform-contract.md,
 * "Decisions where the spec is silent", card sale statuses; statuses are compared
 * case-insensitively, "Tolerance of answers").
 */
export function isCapturedStatus(status: string | undefined): boolean {
  return status !== undefined && status.trim().toLowerCase() === 'captured';
}

/**
 * The status says authorized and not captured (`Accepted` or `Authorized`, any casing): the
 * only card sale the terminal captures by itself (docs/payments.md, "Capture, cancel,
 * refund"). A charged word that may mean captured (`Paid`, `Success`, ...) is not one.
 */
export function isAuthorizedStatus(status: string | undefined): boolean {
  const s = status?.trim().toLowerCase();
  return s === 'accepted' || s === 'authorized';
}

/** The journal state a sale takes for the platform's status (a pending status leaves it to the caller). */
export function saleStateFor(status: string | undefined): TransactionState | undefined {
  switch (classifyStatus(status)) {
    case 'pending':
      return undefined;
    case 'charged':
      return 'approved';
    case 'refused':
      return 'declined';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
    case 'expired':
      return 'failed';
    default:
      // Any other value is shown as it is and needs attention; the sale is followed until
      // the platform says more (isUnknownStatus; docs/platform-contract.md, "Tolerance of
      // answers", status values).
      return 'needs_attention';
  }
}

/** The result message of the last result event that has one (e.g. the issuer's decline reason). */
export function resultMessage(record: PlatformRecord): string | undefined {
  for (const e of recordEvents(record).reverse()) {
    if (typeof e.resultMessage === 'string' && e.resultMessage !== '') return e.resultMessage;
  }
  return undefined;
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  // Stryker disable next-line ConditionalExpression: a text, number or boolean read as an object has none of the fields looked for (amount, value, codeValue, ...), so it reads as absent either way (the mark also covers `if (true)`, which fails every test)
  if (typeof v !== 'object') return undefined;
  return v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * The QR of a consumer-scan answer (docs/platform-contract.md, "Decisions
 * where the spec is silent", where the QR is): walletA
 * `resultData.orderCodeForm.codeDetails.codeValue` with `orderCodeForm.expireTime`, walletB
 * `resultData.codeValue` (also found one level deeper, for a walletB data object).
 */
export function qrOf(record: PlatformRecord): QrInfo | undefined {
  for (const event of recordEvents(record)) {
    const data = asObject(event.resultData);
    if (data === undefined) continue;
    const form = asObject(data.orderCodeForm);
    const details = asObject(form?.codeDetails);
    if (typeof details?.codeValue === 'string') {
      return {
        codeValue: details.codeValue,
        ...(typeof form?.expireTime === 'string' ? { expireTime: form.expireTime } : {}),
      };
    }
    if (typeof data.codeValue === 'string')
      return {
        codeValue: data.codeValue,
        ...(typeof data.expireTime === 'string' ? { expireTime: data.expireTime } : {}),
      };
    for (const inner of Object.values(data)) {
      const o = asObject(inner);
      if (typeof o?.codeValue === 'string')
        return { codeValue: o.codeValue, ...(typeof o.expireTime === 'string' ? { expireTime: o.expireTime } : {}) };
    }
  }
  return undefined;
}

/**
 * An amount object of an answer in minor units (docs/platform-contract.md, "Tolerance of
 * answers", amounts): `amount` as an integer, or `value` as a string in its place. A
 * `value` of digits stands in for `amount` (minor units) next to `currency`, and is in
 * major units next to `currency_code` (the fee objects' form); a `value` with a decimal
 * point is in major units either way and converted with the currency's ISO 4217 digits
 * (`fallbackCurrency` when the object names none). Anything else reads as absent.
 */
export function readAmount(v: unknown, fallbackCurrency?: string): number | undefined {
  const o = asObject(v);
  if (o === undefined) return undefined;
  if (typeof o.amount === 'number') return Number.isSafeInteger(o.amount) && o.amount >= 0 ? o.amount : undefined;
  if (typeof o.amount === 'string' && /^\s*\d{1,15}\s*$/.test(o.amount)) return Number(o.amount);
  if (typeof o.value !== 'string') return undefined;
  const value = o.value.trim();
  const currency =
    typeof o.currency === 'string'
      ? o.currency
      : typeof o.currency_code === 'string'
        ? o.currency_code
        : fallbackCurrency;
  const decimal = /^(\d{1,15})(?:\.(\d{0,9}))?$/.exec(value);
  if (decimal === null) return undefined;
  const [, whole, fraction] = decimal;
  const major = fraction !== undefined || (typeof o.currency !== 'string' && typeof o.currency_code === 'string');
  if (!major) return Number(whole);
  if (currency === undefined || !isKnownCurrency(currency)) return undefined;
  const digits = minorDigits(currency);
  const frac = (fraction ?? '').replace(/0+$/, '');
  if (frac.length > digits) return undefined;
  // A currency without minor units pads nothing: Number('') is 0.
  const minor = Number(whole) * 10 ** digits + Number(frac.padEnd(digits, '0'));
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** What the platform's events say was captured on a card sale (capture result events, the last one not refused counts). */
export function capturedOf(record: PlatformRecord, currency?: string): number | undefined {
  let captured: number | undefined;
  for (const e of recordEvents(record)) {
    if (typeof e.eventType !== 'string' || !/capture/i.test(e.eventType)) continue;
    const result = typeof e.result === 'string' ? classifyStatus(e.result) : undefined;
    if (result === 'refused' || result === 'failed') continue;
    const a = readAmount(e.captureAmount, currency);
    if (a !== undefined) captured = a;
  }
  return captured;
}

/** The record is of a cancel (transactionType `Cancel` in any case), e.g. the answer of a refund by web. */
export function isCancelRecord(record: PlatformRecord): boolean {
  return typeof record.transactionType === 'string' && record.transactionType.trim().toLowerCase() === 'cancel';
}

/** A stable key of a platform event, to deliver each once. */
export function eventKey(event: Record<string, unknown>): string {
  return JSON.stringify(event);
}

/** Events of `incoming` not in `known`, in the platform's order. */
export function newEvents(
  known: Array<Record<string, unknown>>,
  incoming: Array<Record<string, unknown>>,
): Array<Record<string, unknown>> {
  const seen = new Set(known.map(eventKey));
  return incoming.filter((e) => !seen.has(eventKey(e)));
}

/** Keys a public copy of an event never carries, at any depth. */
const CARD_DATA_KEYS: ReadonlySet<string> = new Set(['encryptedData', 'pinblock', 'pinBlock', 'pan', 'track2', 'cvv']);

/** A copy of an event without anything that could be card data (defence in depth: records should carry none). */
export function publicEvent(event: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(event, (key, value: unknown) => (CARD_DATA_KEYS.has(key) ? undefined : value)),
  ) as Record<string, unknown>;
}
