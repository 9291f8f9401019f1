import { describeError } from '../core/index.js';
import { isPlatformError } from '../platform/index.js';
import { adoptSaleRecord } from './adopt.js';
import type { TransactionView } from './api.js';
import type { JournalRow } from './journal/index.js';
import { failureKind, refusalError } from './outcome.js';
import type { PaymentContext } from './payment-context.js';
import { capturedOf, classifyStatus, isCapturedStatus, recordStatus, type PlatformRecord } from './records.js';
import { formatAmount } from './money.js';
import { toView } from './view.js';

/**
 * Capture of every pending card authorization of a merchant (of every merchant when none
 * is named) in one platform call per merchant
 * (docs/platform-contract.md, "Endpoints": captureall). The call has no id of its own,
 * so it gets a journal row of its own; when its answer is lost, each pending sale tells
 * by its own status whether it was captured.
 */
export async function captureAllPending(ctx: PaymentContext, merchantId?: string): Promise<TransactionView[]> {
  if (merchantId !== undefined) return captureAllOf(ctx, merchantId);
  // No merchant named: every merchant with an authorization waiting, the default one first
  // (one platform call per merchant; its token decides whose sales it captures).
  const fallback = ctx.config.auth.merchantId;
  const others = new Set(
    pendingAuthorizations(ctx).flatMap((r) =>
      r.merchantId !== undefined && r.merchantId !== fallback ? [r.merchantId] : [],
    ),
  );
  const views = await captureAllOf(ctx, fallback);
  for (const merchant of others) views.push(...(await captureAllOf(ctx, merchant)));
  return views;
}

function pendingAuthorizations(ctx: PaymentContext): JournalRow[] {
  return ctx.journal
    .inStates(['approved'])
    .filter((r) => r.kind === 'sale' && r.capturedAmount === 0 && isAuthorization(r));
}

async function captureAllOf(ctx: PaymentContext, merchant: string | undefined): Promise<TransactionView[]> {
  // A row without a merchant was made for the default merchant.
  const pending = pendingAuthorizations(ctx).filter((r) => (r.merchantId ?? ctx.config.auth.merchantId) === merchant);
  // One journal row for the call (capture all has no id of its own); amount: what is pending locally.
  const anchor = {
    ...(pending[0] ?? { clientTransactionId: '', currency: ctx.config.payments.defaultCurrency }),
  } as JournalRow;
  // It captures every authorization the platform holds, so every sale's outcome is on disk first (Journal.requireWritten).
  ctx.journal.requireWritten();
  const op = ctx.insert({
    clientTransactionId: ctx.newId(),
    kind: 'capture',
    amount: 0,
    currency: anchor.currency,
    state: 'in_flight',
    clientDateTime: ctx.isoNow(),
    attempts: 1,
    message: 'capture of all pending authorizations',
    ...(merchant !== undefined ? { merchantId: merchant } : {}),
  });
  let answer: { transactions: PlatformRecord[] };
  try {
    answer = await ctx.platform.captureAll(
      { clientDateTime: op.clientDateTime, channel: ctx.channel },
      ctx.callOptions({ merchantId: merchant }),
    );
  } catch (err) {
    const kind = failureKind(err);
    if (kind !== 'unknown') {
      const error =
        kind === 'refused' ? refusalError(err, 'capture of all pending sales', op.clientTransactionId) : err;
      ctx.save(op.clientTransactionId, { state: 'failed', message: describeError(error) });
      throw error;
    }
    // Unknown: each pending sale tells by its own status whether it was captured.
    const views: TransactionView[] = [];
    for (const sale of pending) {
      try {
        const record = await ctx.platform.status(sale.clientTransactionId, ctx.callOptions(sale));
        const adopted = adoptSaleRecord(ctx, sale, record).row;
        // Captured shows as `Captured` or as a capture event (the status word alone is not relied on).
        views.push(
          toView(
            isCapturedStatus(recordStatus(record)) || capturedOf(record) !== undefined
              ? capturedBy(ctx, adopted, record)
              : adopted,
          ),
        );
      } catch (lookupErr) {
        ctx.log.warn(
          {
            clientTransactionId: sale.clientTransactionId,
            code: isPlatformError(lookupErr) ? lookupErr.code : undefined,
          },
          'capture-all lookup failed',
        );
        views.push(toView(sale));
      }
    }
    ctx.save(op.clientTransactionId, {
      state: 'approved',
      message: 'the platform did not answer: sales checked one by one',
    });
    return views;
  }
  const views: TransactionView[] = [];
  for (const record of answer.transactions) {
    const id = typeof record.clientTransactionId === 'string' ? record.clientTransactionId : undefined;
    const sale = id !== undefined ? ctx.journal.get(id) : undefined;
    if (sale === undefined || sale.kind !== 'sale') continue;
    views.push(toView(capturedBy(ctx, sale, record)));
  }
  ctx.save(op.clientTransactionId, { state: 'approved', message: `captured ${views.length} sale(s)` });
  return views;
}

/** An approved card authorization not captured yet (any charged status but `Captured`). */
function isAuthorization(r: JournalRow): boolean {
  // A web order is the web shop's to capture, never this terminal's.
  return (
    r.origin !== 'web' &&
    r.state === 'approved' &&
    classifyStatus(r.platformStatus) === 'charged' &&
    !isCapturedStatus(r.platformStatus)
  );
}

/**
 * A sale listed in the capture-all answer (or found captured after it): its record adopted,
 * and what is captured taken from the capture event, else the authorization left, whatever
 * the status word (docs/platform-contract.md, "Decisions where the spec is silent", captureall).
 * A record that says refused, failed, expired or cancelled is adopted as it is.
 */
function capturedBy(ctx: PaymentContext, sale: JournalRow, record: PlatformRecord): JournalRow {
  const adopted = adoptSaleRecord(ctx, sale, record).row;
  if (classifyStatus(recordStatus(record)) !== 'charged' || adopted.state !== 'approved' || adopted.capturedAmount > 0)
    return adopted;
  const captured = capturedOf(record) ?? adopted.amount - adopted.cancelledAmount;
  return ctx.save(adopted.clientTransactionId, {
    capturedAmount: captured,
    message: `approved: ${formatAmount(adopted.amount, adopted.currency)}, captured ${formatAmount(captured, adopted.currency)}`,
  });
}
