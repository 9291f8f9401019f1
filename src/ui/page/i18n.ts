import type { ApiCounterSettings } from '../wire-types.js';
import { de } from './texts-de.js';
import { canonicalAmountIn, separators } from './amount-format.js';
import { formatDateTime, usablePattern } from './date-time-format.js';
import { en, type Catalog, type TextKey } from './texts-en.js';

export type CounterSettings = ApiCounterSettings;
export type { TextKey };

/**
 * The page's language and formats (docs/counter-page.md, "Local API and counter page",
 * languages): the catalog of the locale's language (English when there is none), amounts
 * with the currency's ISO 4217 minor digits as the agent gives them, times in the clerk's
 * zone, and the locale's decimal separator on the keypad. What the page sends stays
 * canonical ("12.34"); only what people read and type follows the locale.
 */
const CATALOGS: Readonly<Record<string, Catalog>> = { en, de };

let settings: CounterSettings = {
  locale: 'en-GB',
  defaultCurrency: 'EUR',
  currencies: [{ code: 'EUR', digits: 2 }],
  outcomeSeconds: 60,
};
let words: Catalog = en;

function safeLocale(tag: string): string {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? 'en-GB';
  } catch {
    return 'en-GB';
  }
}

/** Takes the agent's settings (GET /session) and puts the page's fixed words in that language. */
export function useSettings(next: CounterSettings, root: ParentNode = document): void {
  settings = { ...next, locale: safeLocale(next.locale) };
  words = CATALOGS[settings.locale.split('-')[0]?.toLowerCase() ?? 'en'] ?? en;
  document.documentElement.lang = settings.locale;
  applyTexts(root);
}

export function currentSettings(): CounterSettings {
  return settings;
}

/** The words of `key` with `{name}` filled in. */
export function t(key: TextKey, params: Readonly<Record<string, string | number>> = {}): string {
  const text: string = words[key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name: string) => (params[name] !== undefined ? String(params[name]) : all));
}

/** The fixed words of index.html: data-i18n (text), data-i18n-placeholder, -aria-label, -title, -alt name catalog keys. */
export function applyTexts(root: ParentNode = document): void {
  const attrs: Array<[string, string]> = [
    ['data-i18n-placeholder', 'placeholder'],
    ['data-i18n-aria-label', 'aria-label'],
    ['data-i18n-title', 'title'],
    ['data-i18n-alt', 'alt'],
  ];
  // data-wallet fills {wallet} (the wallet buttons).
  for (const node of root.querySelectorAll<HTMLElement>('[data-i18n]'))
    node.textContent = t(
      node.dataset.i18n as TextKey,
      node.dataset.wallet !== undefined ? { wallet: node.dataset.wallet } : {},
    );
  for (const [data, attr] of attrs)
    for (const node of root.querySelectorAll<HTMLElement>(`[${data}]`))
      node.setAttribute(attr, t(node.getAttribute(data) as TextKey));
  const amount = root.querySelector<HTMLInputElement>('#amount');
  if (amount !== null) amount.placeholder = formatMajor(0, 2);
  const key = root.querySelector<HTMLButtonElement>('#keypad [data-key="."]');
  if (key !== null) key.textContent = decimalSeparator();
  document.title = t('page.title');
}

function digitsOf(currency: string): number | undefined {
  return settings.currencies.find((c) => c.code === currency)?.digits;
}

function formatMajor(value: number, digits: number): string {
  return new Intl.NumberFormat(settings.locale, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}

/**
 * An amount in minor units as people at this counter read it ("12.34 EUR", "12,34 EUR").
 * A currency the agent gave no minor digits for is shown as the agent wrote it (`fallback`).
 */
export function money(minor: number, currency: string, fallback?: string): string {
  const digits = digitsOf(currency);
  if (digits === undefined) return fallback ?? `${minor} ${currency}`;
  return `${formatMajor(minor / 10 ** digits, digits)} ${currency}`;
}

/** An amount in minor units with the minor digits given alongside it (a report line), in the page's format. */
export function moneyIn(minor: number, currency: string, digits: number): string {
  return `${formatMajor(minor / 10 ** digits, digits)} ${currency}`;
}

/** The amount of a row (or of one of its other amounts), in the page's format. */
export function moneyOf(
  t: { amount: number; currency: string; amountText: string },
  minor?: number,
  text?: string,
): string {
  return minor === undefined ? money(t.amount, t.currency, t.amountText) : money(minor, t.currency, text);
}

function zoned(): { timeZone?: string } {
  return settings.timeZone !== undefined ? { timeZone: settings.timeZone } : {};
}

/** The time of day of an ISO 8601 instant in the clerk's zone ("14:05"; "2:05 PM" where the locale says so). */
export function timeOf(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  try {
    return new Intl.DateTimeFormat(settings.locale, { hour: '2-digit', minute: '2-digit', ...zoned() }).format(d);
  } catch {
    return d.toISOString().slice(11, 16);
  }
}

/** A date in the clerk's zone and locale ("26 Nov 2026", "26.11.2026"). */
export function dateOf(d: Date): string {
  try {
    return new Intl.DateTimeFormat(settings.locale, { dateStyle: 'medium', ...zoned() }).format(d);
  } catch {
    return d.toISOString().slice(0, 10);
  }
}

/**
 * A calendar day (YYYY-MM-DD, the end of day's) as the clerk writes it, with its weekday:
 * the date part of the clerk's own pattern ("DD.MM.YYYY" of "DD.MM.YYYY HH:mm") when the
 * agent gave one, else the locale's numeric date ("Sa., 28.11.2026", "Sat 28/11/2026").
 * A day is no instant: it is written as it is, in no zone.
 */
export function dayOf(date: string): string {
  const d = new Date(`${date}T12:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  try {
    const weekday = new Intl.DateTimeFormat(settings.locale, { weekday: 'short', timeZone: 'UTC' }).format(d);
    const pattern = usablePattern(settings.dateTimeFormat) ? datePartOf(settings.dateTimeFormat) : undefined;
    const written =
      pattern !== undefined
        ? formatDateTime(d, pattern, 'UTC')
        : new Intl.DateTimeFormat(settings.locale, {
            day: '2-digit',
            month: '2-digit',
            year: 'numeric',
            timeZone: 'UTC',
          }).format(d);
    return `${weekday} ${written}`;
  } catch {
    return date;
  }
}

/** The date part of a pattern: from its first to its last of YYYY, MM, DD; undefined when it names no whole date. */
function datePartOf(pattern: string): string | undefined {
  const found = [...pattern.matchAll(/YYYY|MM|DD/g)];
  if (new Set(found.map((m) => m[0])).size < 3) return undefined;
  const first = found[0]?.index ?? 0;
  const last = found.at(-1);
  return last === undefined ? undefined : pattern.slice(first, (last.index ?? 0) + last[0].length);
}

/**
 * A full date and time (the end of day's "added up", a transaction's details, a register's
 * pairing) in the clerk's zone: in the clerk's own pattern (the `datetimeformat` claim,
 * date-time-format.ts) when the agent gave one, else per locale ("26.11.2026, 14:05:09").
 * Short list times stay per locale (timeOf).
 */
export function dateTimeOf(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  try {
    if (usablePattern(settings.dateTimeFormat)) return formatDateTime(d, settings.dateTimeFormat, settings.timeZone);
    return new Intl.DateTimeFormat(settings.locale, { dateStyle: 'medium', timeStyle: 'medium', ...zoned() }).format(d);
  } catch {
    return d.toISOString().slice(0, 19).replace('T', ' ');
  }
}

/** The locale's decimal separator: the keypad's key and what the amount field takes. */
export function decimalSeparator(): string {
  return separators(settings.locale).decimal;
}

/** An amount as typed at this counter in the form the local API takes (amount-format.ts). */
export function canonicalAmount(typed: string): string {
  return canonicalAmountIn(typed, settings.locale);
}
