import { describe, expect, it } from 'vitest';
import { canonicalAmountIn as canonicalAmount } from '../../src/ui/page/amount-format.js';

/** What the counter page sends for an amount typed in the clerk's locale (src/ui/page/amount-format.ts). */
describe('canonicalAmount', () => {
  it('German: "," is the decimal separator, "." groups thousands', () => {
    expect(canonicalAmount('12,34', 'de-DE')).toBe('12.34');
    expect(canonicalAmount('1.234,5', 'de-DE')).toBe('1234.5');
    expect(canonicalAmount('1.234.567,89', 'de-DE')).toBe('1234567.89');
    expect(canonicalAmount(' 7 ', 'de-DE')).toBe('7');
  });

  it('English: "." is the decimal separator, "," groups thousands', () => {
    expect(canonicalAmount('12.34', 'en-GB')).toBe('12.34');
    expect(canonicalAmount('1,234.50', 'en-GB')).toBe('1234.50');
    expect(canonicalAmount('1,000', 'en-GB')).toBe('1000');
  });

  it('a space groups thousands where the locale says so (French)', () => {
    expect(canonicalAmount('1\u202f234,50', 'fr-FR')).toBe('1234.50');
  });

  it('what is no amount in the locale goes as typed, for the agent to refuse with its message', () => {
    // "12,34" in English: the comma does not group thousands; guessing a decimal could charge the wrong amount.
    expect(canonicalAmount('12,34', 'en-GB')).toBe('12,34');
    expect(canonicalAmount('1,2,3', 'de-DE')).toBe('1,2,3');
    expect(canonicalAmount('12.34.5', 'en-GB')).toBe('12.34.5');
    // "12.34" in German: the dot does not group thousands either; sent as typed, the agent reads it as 12.34.
    expect(canonicalAmount('12.34', 'de-DE')).toBe('12.34');
  });
});
