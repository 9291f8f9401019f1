import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/errors.js';
import { ageStage, computeLevels, eligibilityError, limitError } from '../../src/offline/policy.js';
import type { OfflineCandidate, QueueStats } from '../../src/offline/types.js';
import { offlineConfig } from '../helpers/offline-sales.js';

const cfg = offlineConfig({
  floorLimits: { EUR: 25_000, JPY: 30_000 },
  maxTotal: { EUR: 100_000 },
  maxCount: 3,
  maxAgeHours: 24,
  warnBeforeHours: 2,
});
const empty: QueueStats = { count: 0, totals: {} };
const NOW = Date.parse('2026-03-02T10:00:00Z');
const HOUR = 3_600_000;

function candidate(
  over: Partial<OfflineCandidate['sale']> = {},
  rest: Partial<Omit<OfflineCandidate, 'sale'>> = {},
): OfflineCandidate {
  return {
    sale: {
      clientTransactionId: 'c-1',
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      merchantId: undefined,
      ...over,
    },
    entryMode: 'ContactChip',
    maskedPan: '476173******0010',
    scheme: 'visa',
    offlineApproved: true,
    ...rest,
  };
}

function expectError(err: AgentError | undefined, code: string, message: RegExp): void {
  expect(err).toBeInstanceOf(AgentError);
  expect(err?.code).toBe(code);
  expect(err?.message).toMatch(message);
}

describe('offline eligibility', () => {
  it('allows a chip or contactless card sale the reader approved offline', () => {
    expect(eligibilityError(cfg, candidate())).toBeUndefined();
    expect(eligibilityError(cfg, candidate({}, { entryMode: 'ContactlessChip' }))).toBeUndefined();
  });

  it.each([
    ['magstripe', candidate({}, { entryMode: 'Magstripe' }), /magstripe card cannot be taken offline/],
    ['keyed entry', candidate({}, { entryMode: 'Keyed' }), /manually keyed card cannot be taken offline/],
    ['manual method', candidate({ method: 'manual' }), /manually keyed card cannot be taken offline/],
    ['MOTO', candidate({ method: 'moto' }), /MOTO sale cannot be taken offline/],
    ['walletA', candidate({ method: 'walletA' }), /wallet payment cannot be taken offline/],
    ['walletB', candidate({ method: 'walletB' }), /wallet payment cannot be taken offline/],
    ['refund', candidate({ kind: 'refund' }), /a refund cannot be taken offline/],
    ['cancel', candidate({ kind: 'cancel' }), /a cancel cannot be taken offline/],
    [
      'reader did not approve offline',
      candidate({}, { offlineApproved: false }),
      /reader did not approve the sale offline/,
    ],
    ['unknown entry mode', candidate({}, { entryMode: 'Fallback' }), /chip or contactless only/],
  ])('declines %s as not eligible', (_name, c, message) => {
    expectError(eligibilityError(cfg, c), 'OFFLINE_NOT_ELIGIBLE', message);
  });

  it('declines everything when offline sales are turned off', () => {
    expectError(
      eligibilityError({ ...cfg, enabled: false }, candidate()),
      'OFFLINE_NOT_ELIGIBLE',
      /turned off \(offline\.enabled\)/,
    );
  });
});

describe('offline limits', () => {
  it('allows a sale at the floor limit and declines one above it, naming the limit', () => {
    expect(limitError(cfg, empty, 25_000, 'EUR', NOW)).toBeUndefined();
    const err = limitError(cfg, empty, 25_001, 'EUR', NOW);
    expectError(err, 'OFFLINE_LIMIT', /^offline floor limit 250\.00 EUR exceeded: the sale is 250\.01 EUR$/);
    expect(err?.details).toMatchObject({ limit: 'floorLimit', currency: 'EUR', max: 25_000 });
  });

  it('formats the floor limit in the currency minor units (JPY has none)', () => {
    expectError(limitError(cfg, empty, 30_001, 'JPY', NOW), 'OFFLINE_LIMIT', /^offline floor limit 30000 JPY exceeded/);
  });

  it('declines a currency without a floor limit as not allowed offline', () => {
    expectError(
      limitError(cfg, empty, 100, 'USD', NOW),
      'OFFLINE_NOT_ELIGIBLE',
      /offline sales in USD are not allowed: no offline floor limit for USD/,
    );
  });

  it('declines when the queue holds maxCount sales', () => {
    expect(limitError(cfg, { count: 2, totals: { EUR: 2000 } }, 1000, 'EUR', NOW)).toBeUndefined();
    expectError(
      limitError(cfg, { count: 3, totals: { EUR: 3000 } }, 1000, 'EUR', NOW),
      'OFFLINE_LIMIT',
      /^offline queue full: 3 sales stored \(at most 3\)$/,
    );
  });

  it('declines a sale that would take the stored total of its currency over maxTotal', () => {
    expect(limitError(cfg, { count: 1, totals: { EUR: 90_000 } }, 10_000, 'EUR', NOW)).toBeUndefined();
    expectError(
      limitError(cfg, { count: 1, totals: { EUR: 90_000 } }, 10_001, 'EUR', NOW),
      'OFFLINE_LIMIT',
      /^offline total limit 1000\.00 EUR would be exceeded: 900\.00 EUR stored, the sale is 100\.01 EUR$/,
    );
    // No maxTotal for JPY: only count, floor and age bound it.
    expect(limitError(cfg, { count: 1, totals: { JPY: 10_000_000 } }, 30_000, 'JPY', NOW)).toBeUndefined();
  });

  it('declines new offline sales once a stored sale has passed the age limit', () => {
    const stats: QueueStats = {
      count: 1,
      totals: { EUR: 1000 },
      oldest: { clientTransactionId: 'old-1', storedAtMs: NOW - 24 * HOUR + 1 },
    };
    expect(limitError(cfg, stats, 1000, 'EUR', NOW)).toBeUndefined();
    expectError(
      limitError(cfg, stats, 1000, 'EUR', NOW + 1),
      'OFFLINE_LIMIT',
      /^offline age limit 24 h reached: sale old-1 has waited 24 h for upload/,
    );
  });

  it('tells the age stage: ok, warn within warnBeforeHours of the limit, expired at it', () => {
    expect(ageStage(cfg, NOW, NOW + 22 * HOUR - 1)).toBe('ok');
    expect(ageStage(cfg, NOW, NOW + 22 * HOUR)).toBe('warn');
    expect(ageStage(cfg, NOW, NOW + 24 * HOUR)).toBe('expired');
  });
});

describe('offline levels', () => {
  it('shows how close the queue is to each limit', () => {
    const levels = computeLevels(
      cfg,
      { count: 2, totals: { EUR: 25_000 }, oldest: { clientTransactionId: 'a', storedAtMs: NOW - 6 * HOUR } },
      { queued: 2, uploading: 0, uploaded: 5, declined_after_upload: 1, needs_attention: 0 },
      'offline',
      NOW,
    );
    expect(levels.count).toEqual({ stored: 2, max: 3, ratio: 0.667 });
    expect(levels.totals).toEqual([
      { currency: 'EUR', stored: 25_000, max: 100_000, ratio: 0.25, floorLimit: 25_000 },
      { currency: 'JPY', stored: 0, max: null, ratio: null, floorLimit: 30_000 },
    ]);
    expect(levels.age).toEqual({
      oldestClientTransactionId: 'a',
      oldestStoredAt: new Date(NOW - 6 * HOUR).toISOString(),
      oldestAgeMs: 6 * HOUR,
      maxAgeMs: 24 * HOUR,
      ratio: 0.25,
    });
    expect(levels.platform).toBe('offline');
    expect(levels.states.uploaded).toBe(5);
  });
});
