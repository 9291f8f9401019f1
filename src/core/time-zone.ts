/**
 * Whether a time zone name is one the runtime knows (IANA, e.g. UTC, Europe/Berlin,
 * Asia/Singapore, and the aliases and case forms Intl accepts).
 *
 * The zones Intl lists, and UTC, are known without making an `Intl.DateTimeFormat`: the
 * first formatter pages in about 8 MiB of ICU's date data and code, which an idle terminal
 * does not need (docs/performance.md, "Memory"). Any other name is tried with a formatter,
 * so the answer is the formatter's for every name.
 */
let listed: ReadonlySet<string> | undefined;

export function isKnownTimeZone(name: string): boolean {
  listed ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (name === 'UTC' || listed.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
