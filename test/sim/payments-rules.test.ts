import { describe, expect, it } from 'vitest';
import {
  walletACancelDeadline,
  walletBCancelDeadline,
  walletBRefundDeadline,
} from '../../src/sim/platform/payments/windows.js';
import { amountSchema, majorUnits } from '../../src/sim/platform/payments/money.js';
import { isoWithOffset, serverTime, clientDateTimeSchema } from '../../src/sim/platform/payments/dates.js';

const at = (iso: string): number => Date.parse(iso);

describe('cancel and refund windows (spec "Limits")', () => {
  it('walletA: until 00:15 UTC+8 of the day after the sale, whatever the hour of the sale', () => {
    const deadline = at('2026-03-11T00:15:00+08:00');
    expect(walletACancelDeadline(at('2026-03-10T00:00:00+08:00'))).toBe(deadline);
    expect(walletACancelDeadline(at('2026-03-10T12:00:00+08:00'))).toBe(deadline);
    expect(walletACancelDeadline(at('2026-03-10T23:59:59+08:00'))).toBe(deadline);
    // 16:30 UTC is already the next calendar day in UTC+8.
    expect(walletACancelDeadline(at('2026-03-10T16:30:00Z'))).toBe(at('2026-03-12T00:15:00+08:00'));
    // Across a month and a year end.
    expect(walletACancelDeadline(at('2026-12-31T20:00:00+08:00'))).toBe(at('2027-01-01T00:15:00+08:00'));
  });

  it('walletB: 24 hours to cancel, 180 days to refund', () => {
    const t = at('2026-05-01T10:00:00Z');
    expect(walletBCancelDeadline(t)).toBe(at('2026-05-02T10:00:00Z'));
    expect(walletBRefundDeadline(t)).toBe(t + 180 * 86_400_000);
  });
});

describe('amounts and dates', () => {
  it('accepts integer minor units of known currencies only', () => {
    expect(amountSchema.safeParse({ amount: 1, currency: 'EUR' }).success).toBe(true);
    expect(amountSchema.safeParse({ amount: 1, currency: 'JPY' }).success).toBe(true);
    expect(amountSchema.safeParse({ amount: 1, currency: 'eur' }).success).toBe(false);
    expect(amountSchema.safeParse({ amount: 1, currency: 'ABC' }).success).toBe(false);
    expect(amountSchema.safeParse({ amount: 1.5, currency: 'EUR' }).success).toBe(false);
    expect(amountSchema.safeParse({ amount: 0, currency: 'EUR' }).success).toBe(false);
    expect(amountSchema.safeParse({ amount: Number.MAX_SAFE_INTEGER + 2, currency: 'EUR' }).success).toBe(false);
  });

  it('formats major units by the currency digits', () => {
    expect(majorUnits(1250, 'EUR')).toBe('12.50');
    expect(majorUnits(5, 'EUR')).toBe('0.05');
    expect(majorUnits(1200, 'JPY')).toBe('1200');
    expect(majorUnits(1234, 'BHD')).toBe('1.234');
  });

  it('formats server times as MM/DD/YYYY HH:mm:ss UTC and refund times as ISO 8601 with offset', () => {
    expect(serverTime(at('2026-03-04T05:06:07.890Z'))).toBe('03/04/2026 05:06:07');
    expect(isoWithOffset(at('2026-03-04T20:06:07Z'), 480)).toBe('2026-03-05T04:06:07+08:00');
    expect(isoWithOffset(at('2026-03-04T20:06:07Z'))).toBe('2026-03-04T20:06:07+00:00');
  });

  it('accepts clientDateTime with or without milliseconds and Z', () => {
    for (const ok of [
      '2026-03-04T05:06:07Z',
      '2026-03-04T05:06:07.123Z',
      '2026-03-04T05:06:07',
      '2026-03-04T05:06:07+02:00',
    ]) {
      expect(clientDateTimeSchema.safeParse(ok).success).toBe(true);
    }
    for (const bad of ['2026-03-04', '04/03/2026 05:06:07', '2026-13-04T05:06:07Z', ''])
      expect(clientDateTimeSchema.safeParse(bad).success).toBe(false);
  });
});
