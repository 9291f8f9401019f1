import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/core/index.js';
import { ageStage, computeLevels, eligibilityError, limitError, warnAgeMs } from '../../src/offline/policy.js';
import type { OfflineCandidate, QueueStats } from '../../src/offline/types.js';
import { offlineConfig } from '../helpers/offline-sales.js';

// Which sales a terminal takes offline and within which limits (docs/offline.md,
// "Offline queue"), each refusal with the reason a report or the page keys on. Written to
// kill the mutants `npm run mutate` found surviving (test/README.md, "Mutation testing").

const cfg = offlineConfig({
  floorLimits: { EUR: 25_000 },
  maxTotal: { EUR: 100_000 },
  maxCount: 3,
  maxAgeHours: 24,
  warnBeforeHours: 2,
});
const NOW = Date.parse('2026-03-02T10:00:00Z');
const HOUR = 3_600_000;
const states = { queued: 0, uploading: 0, uploaded: 0, declined_after_upload: 0, needs_attention: 0 };

const candidate = (
  over: Partial<OfflineCandidate['sale']> = {},
  rest: Partial<Omit<OfflineCandidate, 'sale'>> = {},
): OfflineCandidate => ({
  sale: {
    clientTransactionId: 'c-1',
    kind: 'sale',
    method: 'card',
    amount: 1000,
    currency: 'EUR',
    merchantId: undefined,
    ...over,
  },
  entryMode: 'ContactlessChip',
  maskedPan: '476173******0010',
  scheme: 'visa',
  offlineApproved: true,
  ...rest,
});

describe('why a sale can never go offline', () => {
  it.each([
    [
      'turned off',
      offlineConfig({ ...cfg, enabled: false }),
      candidate(),
      'disabled',
      'offline sales are turned off (offline.enabled)',
    ],
    ['a refund', cfg, candidate({ kind: 'refund' }), 'kind', 'a refund cannot be taken offline: only card sales can'],
    ['a manual card', cfg, candidate({ method: 'manual' }), 'manual', 'a manually keyed card cannot be taken offline'],
    ['MOTO', cfg, candidate({ method: 'moto' }), 'moto', 'a MOTO sale cannot be taken offline'],
    ['walletA', cfg, candidate({ method: 'walletA' }), 'wallet', 'a wallet payment cannot be taken offline'],
    ['walletB', cfg, candidate({ method: 'walletB' }), 'wallet', 'a wallet payment cannot be taken offline'],
    ['no method', cfg, candidate({ method: undefined }), 'method', 'only card sales can be taken offline'],
    [
      'magstripe',
      cfg,
      candidate({}, { entryMode: 'Magstripe' }),
      'magstripe',
      'a magstripe card cannot be taken offline: insert or tap the card',
    ],
    [
      'a keyed card',
      cfg,
      candidate({}, { entryMode: 'Keyed' }),
      'manual',
      'a manually keyed card cannot be taken offline',
    ],
    [
      'contactless magstripe',
      cfg,
      candidate({}, { entryMode: 'Contactless' }),
      'entryMode',
      'entry mode Contactless cannot be taken offline: chip or contactless only',
    ],
    [
      'not approved by the reader',
      cfg,
      candidate({}, { offlineApproved: false }),
      'reader',
      'the card reader did not approve the sale offline',
    ],
  ])('%s: refused with its reason', (_name, config, c, reason, message) => {
    const err = eligibilityError(config, c);
    expect(err?.code).toBe(ErrorCodes.OFFLINE_NOT_ELIGIBLE);
    expect(err?.message).toBe(message);
    expect(err?.details).toEqual({ reason });
  });

  it('a contact chip and a contactless chip card sale the reader approved are eligible', () => {
    expect(eligibilityError(cfg, candidate({}, { entryMode: 'ContactChip' }))).toBeUndefined();
    expect(eligibilityError(cfg, candidate({}, { entryMode: 'ContactlessChip' }))).toBeUndefined();
  });
});

describe('the limits, at and just past each', () => {
  const stats = (over: Partial<QueueStats> = {}): QueueStats => ({ count: 0, totals: {}, ...over });

  it('a currency without a floor limit says which key to set', () => {
    const err = limitError(cfg, stats(), 1, 'USD', NOW);
    expect(err?.message).toBe(
      'offline sales in USD are not allowed: no offline floor limit for USD (offline.floorLimits)',
    );
    expect(err?.details).toEqual({ reason: 'currency' });
  });

  it('the queue is full at maxCount, and says how many are stored', () => {
    expect(limitError(cfg, stats({ count: 2 }), 1, 'EUR', NOW)).toBeUndefined();
    const err = limitError(cfg, stats({ count: 3 }), 1, 'EUR', NOW);
    expect(err?.code).toBe(ErrorCodes.OFFLINE_LIMIT);
    expect(err?.details).toEqual({ limit: 'maxCount', max: 3, stored: 3 });
  });

  it('the stored total may reach maxTotal exactly, not pass it; a sale in another currency does not count', () => {
    expect(limitError(cfg, stats({ count: 1, totals: { EUR: 75_000 } }), 25_000, 'EUR', NOW)).toBeUndefined();
    const err = limitError(cfg, stats({ count: 1, totals: { EUR: 75_001 } }), 25_000, 'EUR', NOW);
    expect(err?.details).toEqual({ limit: 'maxTotal', currency: 'EUR', max: 100_000, stored: 75_001 });
    // Nothing stored in EUR yet: the limit still applies to the sale alone.
    const alone = offlineConfig({ ...cfg, floorLimits: { EUR: 200_000 } });
    expect(limitError(alone, stats({ totals: { USD: 99_999 } }), 100_001, 'EUR', NOW)?.details).toMatchObject({
      limit: 'maxTotal',
      stored: 0,
    });
    expect(limitError(alone, stats({ totals: { USD: 99_999 } }), 100_000, 'EUR', NOW)).toBeUndefined();
  });

  it('the age limit counts whole hours waited and names the sale to upload', () => {
    const oldest = { clientTransactionId: 'old-1', storedAtMs: NOW - 30 * HOUR - 59 * 60_000 };
    const err = limitError(cfg, stats({ count: 1, totals: { EUR: 1 }, oldest }), 1, 'EUR', NOW);
    expect(err?.message).toBe(
      'offline age limit 24 h reached: sale old-1 has waited 30 h for upload; upload the queue before taking more offline sales',
    );
    expect(err?.details).toEqual({ limit: 'maxAge', maxAgeHours: 24, clientTransactionId: 'old-1' });
    expect(
      limitError(
        cfg,
        stats({ count: 1, totals: { EUR: 1 }, oldest: { clientTransactionId: 'o', storedAtMs: NOW - 24 * HOUR } }),
        1,
        'EUR',
        NOW,
      )?.details,
    ).toMatchObject({ limit: 'maxAge' });
  });
});

describe('the age stages', () => {
  it('a warning longer than the limit itself warns from the start, never before it', () => {
    const wide = offlineConfig({ ...cfg, maxAgeHours: 2, warnBeforeHours: 5 });
    expect(warnAgeMs(wide)).toBe(0);
    expect(ageStage(wide, NOW, NOW)).toBe('warn');
    expect(ageStage(cfg, NOW, NOW)).toBe('ok');
    expect(ageStage(cfg, NOW, NOW + 24 * HOUR - 1)).toBe('warn');
  });
});

describe('how close the queue is to each limit', () => {
  it('an empty queue: no oldest sale, nothing used, the time of the reading', () => {
    const levels = computeLevels(cfg, { count: 0, totals: {} }, states, 'online', NOW);
    expect(levels.enabled).toBe(true);
    expect(levels.count).toEqual({ stored: 0, max: 3, ratio: 0 });
    expect(levels.age).toEqual({
      oldestClientTransactionId: null,
      oldestStoredAt: null,
      oldestAgeMs: null,
      maxAgeMs: 24 * HOUR,
      ratio: 0,
    });
    expect(levels.at).toBe('2026-03-02T10:00:00.000Z');
    expect(levels.states).toEqual(states);
    expect(
      computeLevels(offlineConfig({ ...cfg, enabled: false }), { count: 0, totals: {} }, states, 'online', NOW).enabled,
    ).toBe(false);
  });

  it('a limit of zero is full as soon as anything is stored, and a currency only stored is listed', () => {
    const zero = offlineConfig({ ...cfg, maxCount: 0, maxTotal: { EUR: 0 } });
    const used = computeLevels(zero, { count: 1, totals: { EUR: 5, USD: 7 } }, states, 'offline', NOW);
    expect(used.count.ratio).toBe(1);
    expect(used.totals).toEqual([
      { currency: 'EUR', stored: 5, max: 0, ratio: 1, floorLimit: 25_000 },
      { currency: 'USD', stored: 7, max: null, ratio: null, floorLimit: null },
    ]);
    expect(computeLevels(zero, { count: 0, totals: {} }, states, 'offline', NOW).count.ratio).toBe(0);
  });

  it('lists the currencies in alphabetical order, whichever limit names them first', () => {
    const mixed = offlineConfig({ ...cfg, floorLimits: { USD: 1, EUR: 1 }, maxTotal: { JPY: 1 } });
    const levels = computeLevels(mixed, { count: 0, totals: { CHF: 0 } }, states, 'online', NOW);
    expect(levels.totals.map((t) => t.currency)).toEqual(['CHF', 'EUR', 'JPY', 'USD']);
  });

  it('a sale stored "in the future" (clock set back) is zero hours old, not negative', () => {
    const levels = computeLevels(
      cfg,
      { count: 1, totals: { EUR: 1 }, oldest: { clientTransactionId: 'f', storedAtMs: NOW + HOUR } },
      states,
      'unknown',
      NOW,
    );
    expect(levels.age.oldestAgeMs).toBe(0);
    expect(levels.age.ratio).toBe(0);
  });
});
