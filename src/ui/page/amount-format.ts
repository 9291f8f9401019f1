/**
 * Amounts as typed at the counter, without the DOM (so tests run them in Node): the locale's
 * separators, and the canonical form the local API takes (docs/counter-page.md, "Local API
 * and counter page", languages).
 */

/** The locale's decimal and group separators ("," and "." in German). */
export function separators(locale: string): { decimal: string; group: string } {
  const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(12345.6);
  return {
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
  };
}

/**
 * An amount as typed at this counter ("12,34" in German, "1.234,50", "1,234.50" in English) in
 * the form the local API takes ("12.34", "1234.50"). Only the locale's decimal separator is a
 * decimal separator; its group separator is dropped only where it groups thousands. Anything
 * else goes as typed, for the agent to refuse with its own message rather than be guessed.
 */
export function canonicalAmountIn(typed: string, locale: string): string {
  const { decimal, group } = separators(locale);
  const text = typed.replace(/[\s\u00a0\u202f]/g, '');
  const parts = text.split(decimal);
  if (parts.length > 2) return typed.trim();
  let whole = parts[0] ?? '';
  const fraction = parts[1];
  const blank = /^\s$/u.test(group) || group === '\u00a0' || group === '\u202f';
  if (!blank && group !== decimal && whole.includes(group)) {
    const groups = whole.split(group);
    if (/^\d{1,3}$/.test(groups[0] ?? '') && groups.slice(1).every((g) => /^\d{3}$/.test(g))) whole = groups.join('');
  }
  return fraction === undefined ? whole : `${whole}.${fraction}`;
}
