import { describe, expect, it } from 'vitest';
import {
  capturedOf,
  classifyStatus,
  isCancelRecord,
  readAmount,
  recordServerId,
  recordStatus,
} from '../../src/payments/records.js';

describe('reading amounts of answers (docs/platform-contract.md, "Tolerance of answers", amounts)', () => {
  it('an integer `amount`, or `value` as a string in its place (minor units next to `currency`)', () => {
    expect(readAmount({ amount: 1250, currency: 'EUR' })).toBe(1250);
    expect(readAmount({ value: '1250', currency: 'EUR' })).toBe(1250);
    expect(readAmount({ value: ' 1250 ', currency: 'JPY' })).toBe(1250);
    expect(readAmount({ amount: '1250', currency: 'EUR' })).toBe(1250);
  });

  it('a `value` with a decimal point, or next to `currency_code` (fee objects), is in major units of the currency', () => {
    expect(readAmount({ value: '12.50', currency: 'EUR' })).toBe(1250);
    expect(readAmount({ value: '12.5', currency_code: 'EUR' })).toBe(1250);
    expect(readAmount({ value: '12', currency_code: 'EUR' })).toBe(1200);
    expect(readAmount({ value: '1200', currency_code: 'JPY' })).toBe(1200);
    expect(readAmount({ value: '1.234', currency_code: 'KWD' })).toBe(1234);
    expect(readAmount({ value: '12.50' }, 'EUR')).toBe(1250);
  });

  it('anything else reads as absent, never as a wrong number', () => {
    for (const v of [
      null,
      undefined,
      'x',
      { amount: null },
      { value: null },
      { amount: 12.5 },
      { amount: -1 },
      { value: '12.345', currency: 'EUR' },
      { value: '1,000', currency: 'EUR' },
      { value: '12.5' },
      { value: '12.5', currency: 'ZZZ' },
    ]) {
      expect(readAmount(v), JSON.stringify(v)).toBeUndefined();
    }
  });

  it('the captured amount of a card sale from capture result events, with value strings and any casing of the result', () => {
    const record = {
      transactionStatus: 'Captured',
      events: [
        { eventType: 'cardCaptureResult', result: 'refused', captureAmount: { value: '900', currency: 'EUR' } },
        { eventType: 'platformRiskAssessment', result: null, captureAmount: null },
        { eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { value: '1500', currency: 'EUR' } },
        { eventType: 'cardCaptureResult', result: 'REFUSED', captureAmount: { amount: 700, currency: 'EUR' } },
      ],
    };
    expect(capturedOf(record, 'EUR')).toBe(1500);
  });

  it('status and server id: a non-empty string or unknown; statuses compared case-insensitively', () => {
    expect(recordStatus({ transactionStatus: null })).toBeUndefined();
    expect(recordStatus({ transactionStatus: ' ' })).toBeUndefined();
    expect(recordServerId({ serverTransactionId: null })).toBeUndefined();
    expect(classifyStatus('cancelled')).toBe('cancelled');
    expect(classifyStatus('CANCELLED')).toBe('cancelled');
    expect(classifyStatus(' Accepted ')).toBe('charged');
    expect(classifyStatus('initialized')).toBe('pending');
    expect(isCancelRecord({ transactionType: 'Cancel' })).toBe(true);
    expect(isCancelRecord({ transactionType: 'CANCEL' })).toBe(true);
    expect(isCancelRecord({ transactionType: null })).toBe(false);
  });
});
