import { AgentError, ErrorCodes, describeError, isAgentError } from '../core/index.js';
import type { PaymentContext } from './payment-context.js';
import { formatAmount, minorDigits } from './money.js';
import type { ValidSale } from './sale-request.js';
import { freeMb, type StatFs } from './free-space.js';

/** A check of a readiness condition: ok, and why in words (docs/operations.md, "Health endpoints"). */
export interface StorageCheck {
  ok: boolean;
  detail: string;
}

/** The journal takes writes (docs/journal.md, "Journal", writes that fail); checked now (kept writes retried, or a probe). */
export function journalCheck(ctx: PaymentContext): StorageCheck {
  const status = ctx.journal.retryWrites();
  if (status.writable) return { ok: true, detail: 'journal writable' };
  const kept = status.pendingWrites > 0 ? `; ${status.pendingWrites} outcome(s) kept in memory until written` : '';
  return {
    ok: false,
    detail: `${status.reason ?? 'the journal cannot write'} (since ${status.since ?? 'now'})${kept}`,
  };
}

/** Free space in the data directory at or above payments.minFreeDiskMb. A statfs that fails does not block sales: its detail says so. */
export function diskCheck(ctx: PaymentContext, statfs: StatFs): StorageCheck {
  const min = ctx.config.payments.minFreeDiskMb;
  if (min === 0) return { ok: true, detail: 'free-space guard off (payments.minFreeDiskMb 0)' };
  const free = freeMb(statfs, ctx.config.dataDir);
  if (free === undefined) return { ok: true, detail: 'free space in the data directory could not be read' };
  if (free < min)
    return {
      ok: false,
      detail: `only ${free} MB free in the data directory, below payments.minFreeDiskMb (${min} MB): free space`,
    };
  return { ok: true, detail: `${free} MB free in the data directory` };
}

/** The per-sale maximum of a currency in minor units (payments.maxSaleAmount: the currency's key, else `default`). */
export function maxSaleMinor(ctx: PaymentContext, currency: string): number | undefined {
  const limits = ctx.config.payments.maxSaleAmount;
  const major = limits[currency] ?? limits.default;
  if (major === undefined) return undefined;
  return Math.min(Number.MAX_SAFE_INTEGER, Math.round(major * 10 ** minorDigits(currency)));
}

/**
 * Everything that refuses a sale before the reader, scanner or display is asked
 * (docs/architecture.md, "Invariants"): the per-sale maximum, an unknown merchant, a
 * journal that cannot write, free space below the margin. A refusal is an AgentError
 * saying why; nothing is journaled.
 */
export async function checkSaleCanStart(ctx: PaymentContext, sale: ValidSale, statfs: StatFs): Promise<void> {
  const max = maxSaleMinor(ctx, sale.currency);
  if (max !== undefined && sale.amount > max) {
    throw new AgentError(
      ErrorCodes.AMOUNT_INVALID,
      `${formatAmount(sale.amount, sale.currency)} is above the per-sale maximum of ${formatAmount(max, sale.currency)} (payments.maxSaleAmount): nothing was started`,
      { details: { field: 'amount', maximum: max, currency: sale.currency } },
    );
  }
  const journal = journalCheck(ctx);
  if (!journal.ok) throw new AgentError(ErrorCodes.JOURNAL_UNWRITABLE, `no sale can start: ${journal.detail}`);
  const disk = diskCheck(ctx, statfs);
  if (!disk.ok) throw new AgentError(ErrorCodes.DISK_SPACE_LOW, `no sale can start: ${disk.detail}`);
  if (sale.merchantId !== undefined) await checkMerchant(ctx, sale.merchantId, 'nothing was started');
}

/**
 * A merchant named by a sale or a refund by web must be one of the terminal's: "not one of
 * this terminal's merchants" refuses (AUTH_NO_MERCHANT, naming the field); an unreachable
 * platform leaves the request to its own path (a sale offline, a lookup that fails by itself).
 */
async function checkMerchant(ctx: PaymentContext, merchantId: string, consequence: string): Promise<void> {
  if (ctx.merchantCheck === undefined) return;
  try {
    await ctx.merchantCheck(merchantId);
  } catch (err) {
    if (isAgentError(err, ErrorCodes.AUTH_NO_MERCHANT)) {
      throw new AgentError(
        ErrorCodes.AUTH_NO_MERCHANT,
        `merchant ${merchantId} is not one of this terminal's merchants: ${consequence}`,
        {
          cause: err,
          details: { field: 'merchantId', ...(err.details ?? {}) },
        },
      );
    }
    ctx.log.debug({ merchantId, err: describeError(err) }, 'merchant not checked before the request');
  }
}

/**
 * The merchant a refund by web or a capture of all names, checked like a sale's before
 * anything is looked up, journaled or sent: a stranger is the caller's mistake (400), not
 * the platform's refusal.
 */
export function checkOperationMerchant(
  ctx: PaymentContext,
  merchantId: string,
  consequence = 'nothing was looked up or given back',
): Promise<void> {
  return checkMerchant(ctx, merchantId, consequence);
}
