import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/core/index.js';
import currencyCodes from 'currency-codes';
import {
  MAX_MINOR,
  assertAmount,
  formatAmount,
  formatMajor,
  isKnownCurrency,
  minorDigits,
  normalizeCurrency,
  parseAmount,
  parseMoney,
} from '../../src/payments/money.js';
import { errorOf } from '../helpers/agent-error.js';

// Amounts and currencies as a clerk types them and as the platform is sent them
// (docs/architecture.md, introduction: integer minor units of an ISO 4217 currency).
// Written to kill the mutants `npm run mutate` found surviving (test/README.md, "Mutation testing").

const NOT_PAYABLE = ['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX'];

describe('which currencies can be paid in', () => {
  it('none of the ISO 4217 codes without a minor unit (metals, funds, testing, no currency)', () => {
    for (const code of ['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']) {
      const err = errorOf(() => normalizeCurrency(code));
      expect(err.code, code).toBe(ErrorCodes.CURRENCY_UNKNOWN);
      expect(err.message, code).toBe(`${code} has no minor unit in ISO 4217 and cannot be used for payments`);
      expect(err.details).toEqual({ currency: code });
      expect(isKnownCurrency(code), code).toBe(false);
    }
  });

  it('a real currency in any case and with spaces around is its upper-case code', () => {
    expect(normalizeCurrency(' eur ')).toBe('EUR');
    expect(normalizeCurrency('XOF')).toBe('XOF');
    expect(isKnownCurrency('jpy')).toBe(true);
  });

  it('text that is not three letters is refused saying what a code looks like', () => {
    for (const bad of ['EURO', 'XEUR', 'E1R', 'EU', '']) {
      const err = errorOf(() => normalizeCurrency(bad));
      expect(err.code, bad).toBe(ErrorCodes.CURRENCY_UNKNOWN);
      expect(err.message, bad).toBe(`"${bad}" is not a currency code: expected three letters such as EUR`);
    }
    expect(errorOf(() => normalizeCurrency('ABCDEFGHIJKLMNOPQRSTUVWXYZ')).details).toEqual({
      currency: 'ABCDEFGHIJKLMNOP',
    });
    expect(errorOf(() => normalizeCurrency(42 as unknown as string)).message).toBe(
      '"42" is not a currency code: expected three letters such as EUR',
    );
  });

  it('three letters that are not ISO 4217 are refused by name', () => {
    const err = errorOf(() => normalizeCurrency('abc'));
    expect(err.message).toBe('ABC is not an ISO 4217 currency');
    expect(err.details).toEqual({ currency: 'ABC' });
  });

  it('every payable ISO 4217 code, with the digits of the first record the list has for it, and nothing else', () => {
    const seen = new Set<string>();
    for (const record of currencyCodes.data) {
      if (seen.has(record.code)) continue;
      seen.add(record.code);
      if (NOT_PAYABLE.includes(record.code)) continue;
      expect(normalizeCurrency(record.code.toLowerCase()), record.code).toBe(record.code);
      expect(minorDigits(record.code), record.code).toBe(currencyCodes.code(record.code)?.digits);
    }
    expect(seen.size).toBeGreaterThan(150);
    for (const code of ['ABC', 'EUX', 'QQQ']) expect(isKnownCurrency(code), code).toBe(false);
  });
});

describe('amounts in minor units', () => {
  const refusal = (minor: number, opts = {}) => {
    const err = errorOf(() => assertAmount(minor, 'eur', opts));
    expect(err.code).toBe(ErrorCodes.AMOUNT_INVALID);
    expect(err.details).toEqual({ currency: 'EUR' });
    return err.message;
  };

  it('the largest safe integer is accepted; beyond it, and infinity, are too large, whatever the sign', () => {
    expect(() => assertAmount(MAX_MINOR, 'EUR')).not.toThrow();
    expect(refusal(MAX_MINOR + 2)).toBe(`the amount is too large: at most ${MAX_MINOR} minor units`);
    expect(refusal(-(MAX_MINOR + 2))).toBe(`the amount is too large: at most ${MAX_MINOR} minor units`);
    expect(refusal(Number.POSITIVE_INFINITY)).toBe(`the amount is too large: at most ${MAX_MINOR} minor units`);
  });

  it('not a number, a fraction, negative, or zero where zero is not allowed are refused, each saying why', () => {
    expect(refusal(Number.NaN)).toBe('the amount must be a number of minor units of EUR');
    expect(refusal('12' as unknown as number)).toBe('the amount must be a number of minor units of EUR');
    expect(refusal(1.5)).toBe('the amount must be a whole number of minor units of EUR (got a fraction)');
    expect(refusal(-1)).toBe('the amount must not be negative');
    expect(refusal(0)).toBe('the amount must be greater than zero');
    expect(refusal(0, { allowZero: false })).toBe('the amount must be greater than zero');
    expect(() => assertAmount(0, 'EUR', { allowZero: true })).not.toThrow();
    expect(() => assertAmount(1, 'EUR')).not.toThrow();
  });
});

describe('amounts as a person types them', () => {
  const message = (text: string, currency = 'EUR', opts = {}) => {
    const err = errorOf(() => parseAmount(text, currency, opts));
    expect(err.code).toBe(ErrorCodes.AMOUNT_INVALID);
    return err;
  };

  it('a leading plus, a trailing dot and an amount given as a JSON number are read', () => {
    expect(parseAmount('+5', 'EUR')).toBe(500);
    expect(parseAmount('5.', 'EUR')).toBe(500);
    expect(parseAmount(12 as unknown as string, 'EUR')).toBe(1200);
    expect(parseAmount('0.5', 'EUR')).toBe(50);
    expect(parseAmount('00', 'EUR', { allowZero: true })).toBe(0);
  });

  it('nothing, a minus, a comma, a lone dot or letters are refused, each saying what to type', () => {
    expect(message('   ').message).toBe('no amount given');
    expect(message('   ').details).toEqual({ currency: 'EUR' });
    expect(message('-1').message).toBe('the amount must not be negative');
    expect(message('1,000').message).toBe(
      '"1,000" is not an amount: use a dot as the decimal separator and no thousands separators',
    );
    expect(message('.').message).toBe('"." is not an amount: expected digits such as 12.34');
    expect(message('+').message).toBe('"+" is not an amount: expected digits such as 12.34');
    expect(message('12a').message).toBe('"12a" is not an amount: expected digits such as 12.34');
    expect(message('a12').message).toBe('"a12" is not an amount: expected digits such as 12.34');
    expect(message('1.2.3').message).toBe('"1.2.3" is not an amount: expected digits such as 12.34');
    expect(message('x'.repeat(40)).message).toBe(`"${'x'.repeat(32)}" is not an amount: expected digits such as 12.34`);
  });

  it('every refusal names the currency, and long text is cut to 32 characters in the message', () => {
    for (const text of ['', '-1', '1,0', '.', '1.234', '0'])
      expect(message(text).details, text).toMatchObject({ currency: 'EUR' });
    const long = `1,${'0'.repeat(40)}`;
    expect(message(long).message).toBe(
      `"${long.slice(0, 32)}" is not an amount: use a dot as the decimal separator and no thousands separators`,
    );
    const precise = `1.${'5'.repeat(40)}`;
    expect(message(precise).message).toBe(`EUR has 2 decimals: "${precise.slice(0, 32)}" has 40`);
    expect(message(`1.${'5'.repeat(40)}`, 'JPY').message).toBe(
      `JPY has no minor unit: the amount must be a whole number (got "${precise.slice(0, 32)}")`,
    );
  });

  it('leading zeros do not change the amount', () => {
    expect(parseAmount('007', 'JPY')).toBe(7);
    expect(parseAmount('0007.05', 'EUR')).toBe(705);
    expect(parseAmount('000', 'EUR', { allowZero: true })).toBe(0);
  });

  it('more decimals than the currency has are refused, never rounded', () => {
    const eur = message('1.234');
    expect(eur.message).toBe('EUR has 2 decimals: "1.234" has 3');
    expect(eur.details).toEqual({ currency: 'EUR', digits: 2 });
    expect(message('1.5', 'JPY').message).toBe('JPY has no minor unit: the amount must be a whole number (got "1.5")');
    expect(parseAmount('1.50', 'EUR')).toBe(150);
  });

  it('up to the largest safe integer of minor units, digits beyond it never rounding into range', () => {
    expect(parseAmount('90071992547409.91', 'EUR')).toBe(MAX_MINOR);
    const err = message('90071992547409.92');
    expect(err.message).toBe('the amount is too large: at most 90071992547409.91 EUR');
    expect(err.details).toEqual({ currency: 'EUR' });
    expect(message('90071992547409.93').message).toBe('the amount is too large: at most 90071992547409.91 EUR');
  });

  it('zero is refused unless allowed', () => {
    expect(message('0.00').message).toBe('the amount must be greater than zero');
    expect(parseAmount('0.00', 'EUR', { allowZero: true })).toBe(0);
  });
});

describe('money with its currency', () => {
  it('the currency may come before or after, with or without a space, in any case; without one the default applies', () => {
    expect(parseMoney('USD12', 'EUR')).toEqual({ amount: 1200, currency: 'USD' });
    expect(parseMoney('EUR   12', 'USD')).toEqual({ amount: 1200, currency: 'EUR' });
    expect(parseMoney('  7 jpy ', 'EUR')).toEqual({ amount: 7, currency: 'JPY' });
    expect(parseMoney('0.5', 'kwd')).toEqual({ amount: 500, currency: 'KWD' });
    expect(parseMoney(3 as unknown as string, 'EUR')).toEqual({ amount: 300, currency: 'EUR' });
    expect(parseMoney('0 EUR', 'USD', { allowZero: true })).toEqual({ amount: 0, currency: 'EUR' });
  });

  it('a currency alone, or letters that are not a code, are refused asking for an amount', () => {
    for (const text of ['EUR', '12 EURO', 'twelve', '1E2 EUR', 'XEUR 12', 'EUR 12X', 'EUR 1 2 3 USD']) {
      const err = errorOf(() => parseMoney(text, 'EUR'));
      expect(err.code, text).toBe(ErrorCodes.AMOUNT_INVALID);
      expect(err.message, text).toBe(`"${text}" is not an amount: expected e.g. 12.34 or 12.34 EUR`);
    }
    const long = `twelve ${'x'.repeat(40)}`;
    expect(errorOf(() => parseMoney(long, 'EUR')).message).toBe(
      `"${long.slice(0, 32)}" is not an amount: expected e.g. 12.34 or 12.34 EUR`,
    );
  });
});

describe('amounts shown to people', () => {
  it('negative amounts keep their sign and their decimals', () => {
    expect(formatMajor(-5, 'EUR')).toBe('-0.05');
    expect(formatMajor(-1234, 'EUR')).toBe('-12.34');
    expect(formatMajor(-1000, 'JPY')).toBe('-1000');
    expect(formatMajor(1000, 'JPY')).toBe('1000');
    expect(formatAmount(12345, 'CLF')).toBe('1.2345 CLF');
    expect(formatAmount(100, 'eur')).toBe('1.00 EUR');
  });

  it('a fraction or an unsafe integer of minor units is refused, not shown wrongly', () => {
    for (const bad of [1.5, MAX_MINOR + 2]) {
      const err = errorOf(() => formatMajor(bad, 'EUR'));
      expect(err.code).toBe(ErrorCodes.AMOUNT_INVALID);
      expect(err.message).toBe('the amount must be a whole number of minor units within 2^53');
    }
  });
});
