import { backoffDelay } from '../core/index.js';
import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { isUnknownIdAnswer } from './outcome.js';
import type { PlatformRecord } from './records.js';

export type LookupResult =
  | { kind: 'found'; record: PlatformRecord }
  | { kind: 'not_found'; record?: PlatformRecord }
  | { kind: 'failed'; error: unknown };

/**
 * Looks a transaction up by id after an unknown outcome. A request that timed out may
 * still be on its way through the platform, so "not found" (or found but not yet showing
 * the effect, see `settled`) is looked at again until payments.lookupGraceMs after the
 * request left (counted from the row's last update, on the monotonic clock from now on);
 * only then does it count as not done. An unknown id answered 400 or 422 instead of 404 is
 * "not found" too (isUnknownIdAnswer), so it is bounded by the same grace. Any other failure
 * of the lookup is returned at once.
 */
export async function lookupWithGrace(
  ctx: PaymentContext,
  id: string,
  row: Pick<JournalRow, 'merchantId' | 'updatedAt'>,
  settled: (record: PlatformRecord) => boolean = () => true,
): Promise<LookupResult> {
  const sentAt = Date.parse(row.updatedAt);
  const graceLeft = Math.max(
    0,
    (Number.isNaN(sentAt) ? ctx.clock.wall() : sentAt) + ctx.config.payments.lookupGraceMs - ctx.clock.wall(),
  );
  const end = ctx.clock.mono() + graceLeft;
  for (let attempt = 0; ; attempt++) {
    let last: PlatformRecord | undefined;
    try {
      const record = await ctx.platform.status(id, ctx.callOptions(row));
      if (settled(record)) return { kind: 'found', record };
      last = record;
    } catch (err) {
      if (!isUnknownIdAnswer(err)) return { kind: 'failed', error: err };
    }
    const left = end - ctx.clock.mono();
    if (left <= 0) return last === undefined ? { kind: 'not_found' } : { kind: 'not_found', record: last };
    const wait = Math.max(
      ctx.retryBaseMs,
      backoffDelay(attempt, { baseMs: ctx.retryBaseMs, capMs: 2_000, random: ctx.random }),
    );
    await ctx.clock.sleep(Math.min(left, wait), ctx.stopSignal);
  }
}
