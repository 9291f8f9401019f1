import { describe, expect, it } from 'vitest';
import {
  assertAmount,
  formatAmount,
  formatMajor,
  minorDigits,
  parseAmount,
  parseMoney,
} from '../../src/payments/money.js';
import { errorOf } from '../helpers/agent-error.js';

describe('money', () => {
  it('takes minor digits from ISO 4217, not Intl', () => {
    expect(minorDigits('EUR')).toBe(2);
    expect(minorDigits('jpy')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
    expect(minorDigits('CLF')).toBe(4);
    // Intl says 0 for ISK/COP in some versions; ISO 4217 says 0 for ISK and 2 for COP.
    expect(minorDigits('ISK')).toBe(0);
    expect(minorDigits('COP')).toBe(2);
  });

  it('parses amounts in major units', () => {
    expect(parseAmount('12.34', 'EUR')).toBe(1234);
    expect(parseAmount('12', 'EUR')).toBe(1200);
    expect(parseAmount('12.3', 'EUR')).toBe(1230);
    expect(parseAmount('.5', 'EUR')).toBe(50);
    expect(parseAmount(' 007.10 ', 'EUR')).toBe(710);
    expect(parseAmount('1000', 'JPY')).toBe(1000);
    expect(parseAmount('1.234', 'KWD')).toBe(1234);
    expect(parseAmount('0', 'EUR', { allowZero: true })).toBe(0);
  });

  it('parses money with or without a currency', () => {
    expect(parseMoney('12.34 EUR', 'USD')).toEqual({ amount: 1234, currency: 'EUR' });
    expect(parseMoney('12.34eur', 'USD')).toEqual({ amount: 1234, currency: 'EUR' });
    expect(parseMoney('EUR 12.34', 'USD')).toEqual({ amount: 1234, currency: 'EUR' });
    expect(parseMoney('12.34', 'USD')).toEqual({ amount: 1234, currency: 'USD' });
    expect(parseMoney('1000 JPY', 'EUR')).toEqual({ amount: 1000, currency: 'JPY' });
  });

  it('formats minor units', () => {
    expect(formatAmount(1234, 'EUR')).toBe('12.34 EUR');
    expect(formatAmount(5, 'EUR')).toBe('0.05 EUR');
    expect(formatAmount(0, 'EUR')).toBe('0.00 EUR');
    expect(formatAmount(1000, 'JPY')).toBe('1000 JPY');
    expect(formatAmount(1, 'KWD')).toBe('0.001 KWD');
    expect(formatMajor(-1234, 'EUR')).toBe('-12.34');
    expect(formatAmount(Number.MAX_SAFE_INTEGER, 'EUR')).toBe('90071992547409.91 EUR');
  });

  it.each([
    ['-1.00', 'EUR', /negative/],
    ['0', 'EUR', /greater than zero/],
    ['0.00', 'EUR', /greater than zero/],
    ['12.345', 'EUR', /EUR has 2 decimals/],
    ['12.5', 'JPY', /JPY has no minor unit/],
    ['1,000', 'EUR', /decimal separator/],
    ['abc', 'EUR', /not an amount/],
    ['', 'EUR', /no amount/],
    ['.', 'EUR', /not an amount/],
    ['1e3', 'EUR', /not an amount/],
    ['12.34.5', 'EUR', /not an amount/],
    ['90071992547409.92', 'EUR', /too large/],
    ['99999999999999999999', 'JPY', /too large/],
  ])('refuses %s %s with AMOUNT_INVALID', (text, currency, message) => {
    const err = errorOf(() => parseAmount(text, currency));
    expect(err.code).toBe('AMOUNT_INVALID');
    expect(err.message).toMatch(message);
  });

  it.each([['ABC'], ['XAU'], ['XXX'], ['EU'], ['12€'], ['']])(
    'refuses currency %s with CURRENCY_UNKNOWN',
    (currency) => {
      const err = errorOf(() => parseAmount('1.00', currency));
      expect(err.code).toBe('CURRENCY_UNKNOWN');
    },
  );

  it('refuses money text with an unknown currency or stray letters', () => {
    expect(errorOf(() => parseMoney('12.34 ZZZ', 'EUR')).code).toBe('CURRENCY_UNKNOWN');
    expect(errorOf(() => parseMoney('12.34 euros', 'EUR')).code).toBe('AMOUNT_INVALID');
  });

  it.each([
    [-1, /negative/],
    [0, /greater than zero/],
    [1.5, /fraction/],
    [Number.NaN, /number/],
    [Number.POSITIVE_INFINITY, /too large/],
    [2 ** 53, /too large/],
  ])('assertAmount refuses %s', (minor, message) => {
    const err = errorOf(() => assertAmount(minor, 'EUR'));
    expect(err.code).toBe('AMOUNT_INVALID');
    expect(err.message).toMatch(message);
  });

  it('assertAmount accepts zero only when allowed', () => {
    expect(() => assertAmount(0, 'EUR', { allowZero: true })).not.toThrow();
    expect(() => assertAmount(Number.MAX_SAFE_INTEGER, 'EUR')).not.toThrow();
  });
});
