import { AgentError, ErrorCodes } from '../core/index.js';
import { formatAmount } from '../payments/index.js';
import type { OfflineCandidate, OfflineConfig, OfflineLevels, PlatformState, QueueState, QueueStats } from './types.js';

/**
 * The offline policy (docs/offline.md, "Offline queue"): which card sales may be taken
 * offline and within which limits. Pure functions of the configuration, the queue's
 * totals and the time, so the limits are tested without a database or a clock.
 */

const HOUR_MS = 3_600_000;

/** Reader entry modes with offline data authentication: chip, contact or contactless. */
const OFFLINE_ENTRY_MODES: ReadonlySet<string> = new Set(['ContactChip', 'ContactlessChip']);

function notEligible(message: string, reason: string): AgentError {
  return new AgentError(ErrorCodes.OFFLINE_NOT_ELIGIBLE, message, { details: { reason } });
}

function limit(message: string, details: Record<string, unknown>): AgentError {
  return new AgentError(ErrorCodes.OFFLINE_LIMIT, message, { details });
}

export function maxAgeMs(cfg: OfflineConfig): number {
  return cfg.maxAgeHours * HOUR_MS;
}

/** From this age on a stored sale raises the warning (offline.warnBeforeHours before the limit). */
export function warnAgeMs(cfg: OfflineConfig): number {
  return Math.max(0, (cfg.maxAgeHours - cfg.warnBeforeHours) * HOUR_MS);
}

/** Why this kind of sale can never go offline, whatever the limits; undefined when it can. */
export function eligibilityError(cfg: OfflineConfig, c: OfflineCandidate): AgentError | undefined {
  if (!cfg.enabled) return notEligible('offline sales are turned off (offline.enabled)', 'disabled');
  if (c.sale.kind !== 'sale')
    return notEligible(`a ${c.sale.kind} cannot be taken offline: only card sales can`, 'kind');
  switch (c.sale.method) {
    case 'card':
      break;
    case 'manual':
      return notEligible('a manually keyed card cannot be taken offline', 'manual');
    case 'moto':
      return notEligible('a MOTO sale cannot be taken offline', 'moto');
    case 'walletA':
    case 'walletB':
      return notEligible('a wallet payment cannot be taken offline', 'wallet');
    default:
      return notEligible('only card sales can be taken offline', 'method');
  }
  if (c.entryMode === 'Magstripe')
    return notEligible('a magstripe card cannot be taken offline: insert or tap the card', 'magstripe');
  if (c.entryMode === 'Keyed') return notEligible('a manually keyed card cannot be taken offline', 'manual');
  if (!OFFLINE_ENTRY_MODES.has(c.entryMode))
    return notEligible(`entry mode ${c.entryMode} cannot be taken offline: chip or contactless only`, 'entryMode');
  if (!c.offlineApproved) return notEligible('the card reader did not approve the sale offline', 'reader');
  return undefined;
}

/**
 * The first limit a new offline sale of `amount` would break, or undefined. A currency
 * without a floor limit is not allowed offline; without a total limit only the count and
 * age limits bound it.
 */
export function limitError(
  cfg: OfflineConfig,
  stats: QueueStats,
  amount: number,
  currency: string,
  now: number,
): AgentError | undefined {
  const floor = cfg.floorLimits[currency];
  if (floor === undefined) {
    return notEligible(
      `offline sales in ${currency} are not allowed: no offline floor limit for ${currency} (offline.floorLimits)`,
      'currency',
    );
  }
  if (amount > floor) {
    return limit(
      `offline floor limit ${formatAmount(floor, currency)} exceeded: the sale is ${formatAmount(amount, currency)}`,
      {
        limit: 'floorLimit',
        currency,
        max: floor,
      },
    );
  }
  if (stats.count >= cfg.maxCount) {
    return limit(`offline queue full: ${stats.count} sales stored (at most ${cfg.maxCount})`, {
      limit: 'maxCount',
      max: cfg.maxCount,
      stored: stats.count,
    });
  }
  const maxTotal = cfg.maxTotal[currency];
  const stored = stats.totals[currency] ?? 0;
  if (maxTotal !== undefined && stored + amount > maxTotal) {
    return limit(
      `offline total limit ${formatAmount(maxTotal, currency)} would be exceeded: ${formatAmount(stored, currency)} stored, the sale is ${formatAmount(amount, currency)}`,
      { limit: 'maxTotal', currency, max: maxTotal, stored },
    );
  }
  if (stats.oldest !== undefined && now - stats.oldest.storedAtMs >= maxAgeMs(cfg)) {
    const hours = Math.floor((now - stats.oldest.storedAtMs) / HOUR_MS);
    return limit(
      `offline age limit ${cfg.maxAgeHours} h reached: sale ${stats.oldest.clientTransactionId} has waited ${hours} h for upload; upload the queue before taking more offline sales`,
      { limit: 'maxAge', maxAgeHours: cfg.maxAgeHours, clientTransactionId: stats.oldest.clientTransactionId },
    );
  }
  return undefined;
}

export type AgeStage = 'ok' | 'warn' | 'expired';

export function ageStage(cfg: OfflineConfig, storedAtMs: number, now: number): AgeStage {
  const age = now - storedAtMs;
  if (age >= maxAgeMs(cfg)) return 'expired';
  if (age >= warnAgeMs(cfg)) return 'warn';
  return 'ok';
}

const ratio = (value: number, max: number): number =>
  max <= 0 ? (value > 0 ? 1 : 0) : Math.round((value / max) * 1000) / 1000;

export function computeLevels(
  cfg: OfflineConfig,
  stats: QueueStats,
  states: Record<QueueState, number>,
  platform: PlatformState,
  now: number,
): OfflineLevels {
  const currencies = new Set([
    ...Object.keys(cfg.floorLimits),
    ...Object.keys(cfg.maxTotal),
    ...Object.keys(stats.totals),
  ]);
  const totals = [...currencies].sort().map((currency) => {
    const stored = stats.totals[currency] ?? 0;
    const max = cfg.maxTotal[currency];
    return {
      currency,
      stored,
      max: max ?? null,
      ratio: max === undefined ? null : ratio(stored, max),
      floorLimit: cfg.floorLimits[currency] ?? null,
    };
  });
  const maxAge = maxAgeMs(cfg);
  const oldestAge = stats.oldest === undefined ? null : Math.max(0, now - stats.oldest.storedAtMs);
  return {
    enabled: cfg.enabled,
    platform,
    count: { stored: stats.count, max: cfg.maxCount, ratio: ratio(stats.count, cfg.maxCount) },
    totals,
    age: {
      oldestClientTransactionId: stats.oldest?.clientTransactionId ?? null,
      oldestStoredAt: stats.oldest === undefined ? null : new Date(stats.oldest.storedAtMs).toISOString(),
      oldestAgeMs: oldestAge,
      maxAgeMs: maxAge,
      ratio: oldestAge === null ? 0 : ratio(oldestAge, maxAge),
    },
    states,
    at: new Date(now).toISOString(),
  };
}
