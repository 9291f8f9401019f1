import { isKnownTimeZone } from '../../core/index.js';
import { formatMajor } from '../money.js';

/**
 * Whose language and zone a receipt or an end of day is printed in (docs/receipts.md,
 * "Language and time zone"): the store's own setting (`receipts.locale`, `receipts.timeZone`)
 * when it has one, else the signed-in clerk's token claims (`locale`, `zoneinfo`), else the
 * counter's settings (`api.locale`, `api.timeZone`, then the terminal's zone). The CLI and
 * a paired register have no clerk: the store's setting, then the counter's.
 */
export interface ReaderStyle {
  /** A BCP 47 tag the runtime takes (en-GB, de-DE). */
  locale: string;
  /** An IANA zone the runtime knows. */
  timeZone: string;
}

function usableLocale(tag: string | undefined): string | undefined {
  if (tag === undefined) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

function usableZone(zone: string | undefined): string | undefined {
  return zone !== undefined && isKnownTimeZone(zone) ? zone : undefined;
}

/**
 * The first of store, clerk and counter that names a usable locale, and the same for the
 * zone, each on its own: a clerk's claim the runtime cannot use is passed over, never an
 * error (the receipt is printed in the counter's instead).
 */
export function readerStyle(
  store: Partial<ReaderStyle>,
  clerk: Partial<ReaderStyle> | undefined,
  counter: ReaderStyle,
): ReaderStyle {
  return {
    locale: usableLocale(store.locale) ?? usableLocale(clerk?.locale) ?? counter.locale,
    timeZone: usableZone(store.timeZone) ?? usableZone(clerk?.timeZone) ?? counter.timeZone,
  };
}

/** The terminal's own zone (the runtime's, from TZ or /etc/localtime): the last of the chain. */
export function terminalTimeZone(): string {
  return usableZone(Intl.DateTimeFormat().resolvedOptions().timeZone) ?? 'UTC';
}

/**
 * An amount in minor units as the reader writes it, without the currency ("1234,56" in
 * German, "1234.56" in English): the exact decimal text is formatted, never a float. No
 * grouping: "1.500" is never read as JPY 1500 by one reader and KWD 1.5 by another.
 * A currency the runtime does not know keeps the canonical text.
 */
export function amountIn(minor: number, currency: string, locale: string): string {
  let canonical: string;
  try {
    canonical = formatMajor(minor, currency);
  } catch {
    return String(minor);
  }
  const digits = canonical.includes('.') ? (canonical.split('.')[1]?.length ?? 0) : 0;
  try {
    // A decimal string keeps every digit (Intl.NumberFormat reads it exactly, ES2023).
    return new Intl.NumberFormat(locale, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      useGrouping: false,
    }).format(canonical as `${number}`);
  } catch {
    return canonical;
  }
}
