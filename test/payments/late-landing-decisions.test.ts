import { describe, expect, it } from 'vitest';
import {
  NOT_FOUND_MESSAGE,
  isCountedNotDone,
  lateLandingIntervalCap,
  lateLandingResumeSince,
  lateLandingWatchEnd,
} from '../../src/payments/late-landing.js';
import { DAY, HOUR, SOLD_AT, saleRow } from './sale-row.js';

// The late-landing watch's bounds (docs/payments.md, "Unknown outcome: resolution and
// reversal", step 3), decided without a platform.
const MIN = 60_000;
const notDone = (over: Parameters<typeof saleRow>[0] = {}) =>
  saleRow({
    method: 'card',
    state: 'failed',
    serverTransactionId: undefined,
    message: NOT_FOUND_MESSAGE,
    attempts: 1,
    ...over,
  });

describe('how long a sale counted as not done is watched', () => {
  it('a wallet sale until its cancel window ends, whatever the configured watch', () => {
    // walletA: until 00:15 UTC+8 on the next day (10:00Z = 18:00 UTC+8 -> 16:15Z); walletB: 24 h.
    expect(lateLandingWatchEnd(saleRow({ method: 'walletA' }), 10 * MIN)).toBe(Date.parse('2026-03-01T16:15:00.000Z'));
    expect(lateLandingWatchEnd(saleRow({ method: 'walletB' }), 10 * MIN)).toBe(SOLD_AT + DAY);
  });

  it('a card sale for the configured watch after the sale', () => {
    expect(lateLandingWatchEnd(saleRow({ method: 'card' }), 2 * HOUR)).toBe(SOLD_AT + 2 * HOUR);
    expect(lateLandingWatchEnd(saleRow({ method: 'card' }), 1)).toBe(SOLD_AT + 1);
  });

  it('no watch at all when it is configured off (0 or less)', () => {
    expect(lateLandingWatchEnd(saleRow({ method: 'card' }), 0)).toBeUndefined();
    expect(lateLandingWatchEnd(saleRow({ method: 'walletB' }), 0)).toBeUndefined();
    expect(lateLandingWatchEnd(saleRow({ method: 'card' }), -1)).toBeUndefined();
  });

  it('after a restart, rows counted within the longest window are read again: the watch or the 25 h wallet window, whichever is longer', () => {
    const now = Date.parse('2026-03-02T12:00:00.000Z');
    expect(lateLandingResumeSince(now, 2 * HOUR)).toBe(now - 25 * HOUR);
    expect(lateLandingResumeSince(now, 48 * HOUR)).toBe(now - 48 * HOUR);
  });

  it('looks again at least every 10 min and at most every 30 s, a tenth of the time since the sale was counted in between', () => {
    expect(lateLandingIntervalCap(0)).toBe(30_000);
    expect(lateLandingIntervalCap(5 * MIN)).toBe(30_000);
    expect(lateLandingIntervalCap(20 * MIN)).toBe(2 * MIN);
    expect(lateLandingIntervalCap(20 * MIN + 9)).toBe(2 * MIN);
    expect(lateLandingIntervalCap(100 * MIN)).toBe(10 * MIN);
    expect(lateLandingIntervalCap(10 * HOUR)).toBe(10 * MIN);
  });
});

describe('which rows the watch is for', () => {
  it('a sale whose request left and which the platform had no record of', () => {
    expect(isCountedNotDone(notDone())).toBe(true);
    expect(isCountedNotDone(notDone({ attempts: 3 }))).toBe(true);
    expect(isCountedNotDone(notDone({ message: 'the platform has no record of this sale: nothing was charged' }))).toBe(
      true,
    );
  });

  it('not a refund or cancel, a sale in another state, one never sent, one the platform named, an offline sale or one failed for another reason', () => {
    expect(isCountedNotDone(notDone({ kind: 'refund' }))).toBe(false);
    expect(isCountedNotDone(notDone({ state: 'declined' }))).toBe(false);
    expect(isCountedNotDone(notDone({ attempts: 0 }))).toBe(false);
    expect(isCountedNotDone(notDone({ serverTransactionId: 'srv-9' }))).toBe(false);
    expect(isCountedNotDone(notDone({ offline: true }))).toBe(false);
    expect(isCountedNotDone(notDone({ message: 'declined: insufficient funds' }))).toBe(false);
  });
});
