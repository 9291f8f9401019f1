import currencyCodes from 'currency-codes';
import { AgentError, ErrorCodes } from '../core/index.js';

/**
 * Money is integer minor units of an ISO 4217 currency (docs/architecture.md, introduction). The number of
 * minor digits comes from the ISO 4217 list shipped in `currency-codes`, not from Intl,
 * whose fraction digits differ for some currencies (e.g. ISK, COP, IDR).
 */

/** ISO 4217 codes whose minor unit is "N.A." (metals, funds, testing, no currency): not payable. */
const NOT_PAYABLE = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

export const MAX_MINOR = Number.MAX_SAFE_INTEGER;

export interface Money {
  amount: number;
  currency: string;
}

export interface AssertAmountOptions {
  /** Zero is allowed (e.g. a limit); sales, refunds and captures need a positive amount. */
  allowZero?: boolean;
}

function currencyError(message: string, currency: string): AgentError {
  return new AgentError(ErrorCodes.CURRENCY_UNKNOWN, message, { details: { currency } });
}

function amountError(message: string, details: Record<string, unknown> = {}): AgentError {
  return new AgentError(ErrorCodes.AMOUNT_INVALID, message, { details });
}

/**
 * The ISO 4217 digits of each code, built from the package's list on first use: its own
 * lookup scans the whole list on every call, and a sale reads a currency's digits a dozen
 * times (parsing, checks, messages, the receipt). The first record of a code counts, as in
 * the package's lookup.
 */
let digitsByCode: ReadonlyMap<string, number> | undefined;

function isoDigits(code: string): number | undefined {
  // Stryker disable next-line ConditionalExpression: a map built again on every call reads the same; it only saves the scan
  if (digitsByCode === undefined) {
    const map = new Map<string, number>();
    // Stryker disable next-line ConditionalExpression: the package's list holds each code once, so the last record is the first
    for (const r of currencyCodes.data) if (!map.has(r.code)) map.set(r.code, r.digits);
    digitsByCode = map;
  }
  return digitsByCode.get(code);
}

/** The currency code in upper case, checked against ISO 4217. */
export function normalizeCurrency(currency: string): string {
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency.trim())) {
    const shown = String(currency).slice(0, 16);
    throw currencyError(`"${shown}" is not a currency code: expected three letters such as EUR`, shown);
  }
  const code = currency.trim().toUpperCase();
  if (isoDigits(code) === undefined) throw currencyError(`${code} is not an ISO 4217 currency`, code);
  if (NOT_PAYABLE.has(code))
    throw currencyError(`${code} has no minor unit in ISO 4217 and cannot be used for payments`, code);
  return code;
}

/** Minor digits of the currency per ISO 4217 (EUR 2, JPY 0, KWD 3, CLF 4). */
export function minorDigits(currency: string): number {
  const code = normalizeCurrency(currency);
  // normalizeCurrency guarantees the record exists.
  return isoDigits(code) ?? 0;
}

export function isKnownCurrency(currency: string): boolean {
  try {
    normalizeCurrency(currency);
    return true;
  } catch {
    return false;
  }
}

/** Checks an amount in minor units: an integer, not negative, within 2^53, positive unless allowZero. */
export function assertAmount(minor: number, currency: string, opts: AssertAmountOptions = {}): void {
  const code = normalizeCurrency(currency);
  if (typeof minor !== 'number' || Number.isNaN(minor))
    throw amountError(`the amount must be a number of minor units of ${code}`, { currency: code });
  if (!Number.isFinite(minor) || Math.abs(minor) > MAX_MINOR) {
    throw amountError(`the amount is too large: at most ${MAX_MINOR} minor units`, { currency: code });
  }
  if (!Number.isInteger(minor))
    throw amountError(`the amount must be a whole number of minor units of ${code} (got a fraction)`, {
      currency: code,
    });
  if (minor < 0) throw amountError('the amount must not be negative', { currency: code });
  if (minor === 0 && opts.allowZero !== true)
    throw amountError('the amount must be greater than zero', { currency: code });
}

/**
 * Parses an amount in major units as a person types it ("12.34", "12", ".5", "1000")
 * into minor units of the currency. A dot is the only decimal separator: "1,000" is
 * refused rather than guessed.
 */
export function parseAmount(text: string, currency: string, opts: AssertAmountOptions = {}): number {
  const code = normalizeCurrency(currency);
  const digits = minorDigits(code);
  const raw = typeof text === 'string' ? text.trim() : String(text);
  if (raw === '') throw amountError('no amount given', { currency: code });
  if (raw.startsWith('-')) throw amountError('the amount must not be negative', { currency: code });
  if (raw.includes(','))
    throw amountError(
      `"${raw.slice(0, 32)}" is not an amount: use a dot as the decimal separator and no thousands separators`,
      { currency: code },
    );
  const m = /^\+?(\d*)(?:\.(\d*))?$/.exec(raw);
  // Leading zeros need no stripping: BigInt reads "007" as 7.
  // Stryker disable next-line StringLiteral: group 1 (\d*) takes part in every match, so it is never undefined
  const whole = m?.[1] ?? '';
  const fraction = m?.[2] ?? '';
  // No match leaves both empty too.
  if (whole === '' && fraction === '') {
    throw amountError(`"${raw.slice(0, 32)}" is not an amount: expected digits such as 12.34`, { currency: code });
  }
  if (fraction.length > digits) {
    throw amountError(
      digits === 0
        ? `${code} has no minor unit: the amount must be a whole number (got "${raw.slice(0, 32)}")`
        : // ISO 4217 has no currency with one minor digit: the others have 2, 3 or 4.
          `${code} has ${digits} decimals: "${raw.slice(0, 32)}" has ${fraction.length}`,
      { currency: code, digits },
    );
  }
  // No whole part (".5") needs no "0": BigInt reads "50", and never gets "" (refused above).
  const minorText = `${whole}${fraction.padEnd(digits, '0')}`;
  // Compare as BigInt so that digits beyond 2^53 cannot round into range.
  const big = BigInt(minorText);
  if (big > BigInt(MAX_MINOR))
    throw amountError(`the amount is too large: at most ${formatAmount(MAX_MINOR, code)}`, { currency: code });
  const minor = Number(big);
  assertAmount(minor, code, opts);
  return minor;
}

/**
 * Parses "12.34 EUR", "EUR 12.34", "12.34eur" or "12.34" (default currency) into
 * minor units and the currency code.
 */
export function parseMoney(text: string, defaultCurrency: string, opts: AssertAmountOptions = {}): Money {
  const raw = typeof text === 'string' ? text.trim() : String(text);
  const after = /^([^A-Za-z]*?)\s*([A-Za-z]{3})$/.exec(raw);
  const before = /^([A-Za-z]{3})\s*([^A-Za-z]*)$/.exec(raw);
  let amountText = raw;
  let currency = defaultCurrency;
  if (after !== null && after[1] !== undefined && after[1] !== '') {
    amountText = after[1];
    currency = after[2] ?? defaultCurrency;
  } else if (before !== null && before[2] !== undefined && before[2] !== '') {
    amountText = before[2];
    currency = before[1] ?? defaultCurrency;
  } else if (/[A-Za-z]/.test(raw)) {
    throw amountError(`"${raw.slice(0, 32)}" is not an amount: expected e.g. 12.34 or 12.34 EUR`);
  }
  const code = normalizeCurrency(currency);
  return { amount: parseAmount(amountText, code, opts), currency: code };
}

/** Minor units as major units with the currency: 1234 EUR -> "12.34 EUR", 1000 JPY -> "1000 JPY". */
export function formatAmount(minor: number, currency: string): string {
  return `${formatMajor(minor, currency)} ${normalizeCurrency(currency)}`;
}

/** Minor units as major units without the currency: 1234 EUR -> "12.34". */
export function formatMajor(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  if (!Number.isSafeInteger(minor)) throw amountError('the amount must be a whole number of minor units within 2^53');
  const negative = minor < 0;
  const text = String(Math.abs(minor));
  if (digits === 0) return `${negative ? '-' : ''}${text}`;
  const padded = text.padStart(digits + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
