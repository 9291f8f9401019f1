import { describeError } from '../core/index.js';
import { isPlatformError } from '../platform/index.js';
import { adoptSaleRecord } from './adopt.js';
import type { TransactionView } from './api.js';
import type { JournalRow } from './journal/index.js';
import { failureKind, refusalError } from './outcome.js';
import type { PaymentContext } from './payment-context.js';
import type { PlatformRecord } from './records.js';
import { toView } from './view.js';

/**
 * Capture of every pending card authorization of a merchant in one platform call
 * (docs/platform-contract.md, "Endpoints": captureall). The call has no id of its own,
 * so it gets a journal row of its own; when its answer is lost, each pending sale tells
 * by its own status whether it was captured.
 */
export async function captureAllPending(ctx: PaymentContext, merchantId?: string): Promise<TransactionView[]> {
  const merchant = merchantId ?? ctx.config.auth.merchantId;
  const pending = ctx.journal
    .inStates(['approved'])
    .filter((r) => r.kind === 'sale' && r.capturedAmount === 0 && /^accepted$/i.test(r.platformStatus ?? '') && (merchant === undefined || r.merchantId === undefined || r.merchantId === merchant));
  // One journal row for the call (capture all has no id of its own); amount: what is pending locally.
  const anchor = { ...(pending[0] ?? { clientTransactionId: '', currency: ctx.config.payments.defaultCurrency }) } as JournalRow;
  const op = ctx.journal.insert({
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
  ctx.publish(op);
  let answer: { transactions: PlatformRecord[] };
  try {
    answer = await ctx.platform.captureAll({ clientDateTime: op.clientDateTime, channel: ctx.channel }, merchant !== undefined ? { merchantId: merchant } : {});
  } catch (err) {
    const kind = failureKind(err);
    if (kind !== 'unknown') {
      const error = kind === 'refused' ? refusalError(err, 'capture of all pending sales', op.clientTransactionId) : err;
      ctx.save(op.clientTransactionId, { state: 'failed', message: describeError(error) });
      throw error;
    }
    // Unknown: each pending sale tells by its own status whether it was captured.
    const views: TransactionView[] = [];
    for (const sale of pending) {
      try {
        const record = await ctx.platform.status(sale.clientTransactionId, ctx.callOptions(sale));
        views.push(toView(adoptSaleRecord(ctx, sale, record).row));
      } catch (lookupErr) {
        ctx.log.warn({ clientTransactionId: sale.clientTransactionId, code: isPlatformError(lookupErr) ? lookupErr.code : undefined }, 'capture-all lookup failed');
        views.push(toView(sale));
      }
    }
    ctx.save(op.clientTransactionId, { state: 'approved', message: 'the platform did not answer: sales checked one by one' });
    return views;
  }
  const views: TransactionView[] = [];
  for (const record of answer.transactions) {
    const id = typeof record.clientTransactionId === 'string' ? record.clientTransactionId : undefined;
    const sale = id !== undefined ? ctx.journal.get(id) : undefined;
    if (sale === undefined || sale.kind !== 'sale') continue;
    views.push(toView(adoptSaleRecord(ctx, sale, record).row));
  }
  ctx.save(op.clientTransactionId, { state: 'approved', message: `captured ${views.length} sale(s)` });
  return views;
}
