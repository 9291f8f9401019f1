import type { JournalRow } from './journal/index.js';
import { cancelDeadline, saleTime } from './rules.js';

/**
 * The late-landing watch's bounds (docs/payments.md, "Unknown outcome: resolution and
 * reversal", step 3): a sale counted as not done ("not found" after the lookup grace) is
 * looked for again until the platform's own window for acting on it ends, so a write held
 * on the way for longer than any fixed time is still reversed when it lands.
 */

/** The verdict the watch is for: the platform had no record of the sale after the grace. */
export const NOT_FOUND_MESSAGE = 'the platform has no record of this sale: nothing was charged';

/** The longest wallet cancel window (walletA: until 00:15 UTC+8 on the next day; walletB: 24 h). */
const WALLET_WINDOW_MAX_MS = 25 * 60 * 60_000;
const MIN_INTERVAL_CAP_MS = 30_000;
const MAX_INTERVAL_CAP_MS = 10 * 60_000;

/**
 * When the watch of `sale` ends (wall-clock ms), undefined when it is off: a wallet sale's
 * cancel window (the spec's: after it a landed sale can no longer be voided); a card sale,
 * for which the spec names no window, `payments.lateLandingWatchMs` after the sale.
 */
export function lateLandingWatchEnd(sale: JournalRow, watchMs: number): number | undefined {
  if (watchMs <= 0) return undefined;
  return cancelDeadline(sale) ?? saleTime(sale) + watchMs;
}

/**
 * Rows whose watch may still run were updated (counted as not done) after this instant:
 * the resume query at start reads only those (`updated_at > ?`), never every failed row.
 */
export function lateLandingResumeSince(now: number, watchMs: number): number {
  return now - Math.max(watchMs, WALLET_WINDOW_MAX_MS);
}

/**
 * Longest wait between two looks: a tenth of the time since the sale was counted as not
 * done, between 30 s and 10 min (a request held for seconds is found within seconds; one
 * held for hours costs a status call every 10 min).
 */
export function lateLandingIntervalCap(sinceCountedMs: number): number {
  return Math.min(MAX_INTERVAL_CAP_MS, Math.max(MIN_INTERVAL_CAP_MS, Math.floor(sinceCountedMs / 10)));
}

/** A sale the watch is for: counted as not done after its request left (not offline, no platform id). */
export function isCountedNotDone(row: JournalRow): boolean {
  return (
    row.kind === 'sale' &&
    row.state === 'failed' &&
    row.attempts >= 1 &&
    row.serverTransactionId === undefined &&
    !row.offline &&
    row.message === NOT_FOUND_MESSAGE
  );
}
