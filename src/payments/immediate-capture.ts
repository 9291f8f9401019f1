import { backoffDelay, describeError, ErrorCodes, isAgentError } from '../core/index.js';
import type { JournalRow } from './journal/index.js';
import { openOperations, sendCapture } from './operations.js';
import type { PaymentContext } from './payment-context.js';
import { classifyStatus, isCapturedStatus } from './records.js';

const isCardMethod = (row: JournalRow): boolean => row.method === 'card' || row.method === 'manual' || row.method === 'moto';

/** A card authorization the platform has not captured: approved, charged status other than `Captured`, nothing captured. */
export function needsImmediateCapture(ctx: PaymentContext, sale: JournalRow): boolean {
  if (ctx.config.payments.captureMode !== 'immediate' || sale.origin === 'web' || sale.kind !== 'sale' || sale.state !== 'approved' || !isCardMethod(sale)) return false;
  if (sale.capturedAmount > 0 || classifyStatus(sale.platformStatus) !== 'charged' || isCapturedStatus(sale.platformStatus)) return false;
  return sale.amount - sale.cancelledAmount > 0;
}

/**
 * payments.captureMode immediate (docs/architecture.md, "Card sale", "Start-up recovery",
 * "Offline card sale and upload"): an authorization the platform approved but did not
 * capture is captured at once, whichever way the sale got its answer (the process answer,
 * a lookup after an unknown outcome or at start-up, an offline upload). Once: a sale with
 * something captured, or with a capture under way, is left alone; a retried capture keeps
 * the capture row's client id (journalOperation). A failed capture leaves the sale approved
 * with a message to capture it later.
 */
export async function captureIfImmediate(ctx: PaymentContext, sale: JournalRow): Promise<void> {
  if (!needsImmediateCapture(ctx, sale)) return;
  if (openOperations(ctx, sale).capture > 0) return;
  try {
    await sendCapture(ctx, sale, sale.amount - sale.cancelledAmount);
  } catch (err) {
    if (isAgentError(err, ErrorCodes.JOURNAL_UNWRITABLE)) {
      // Its row could not be written, so nothing was sent: the capture waits for the journal
      // (docs/architecture.md, "Journal", writes that fail) instead of leaving the authorization to expire.
      ctx.save(sale.clientTransactionId, { message: 'approved and authorized; the capture waits until the journal can write (free space in the data directory)' });
      ctx.background('immediate capture waits for the journal', () => captureWhenWritable(ctx, sale.clientTransactionId));
      return;
    }
    ctx.save(sale.clientTransactionId, { message: `approved and authorized, but the capture failed (${describeError(err)}): capture it later` });
  }
}

async function captureWhenWritable(ctx: PaymentContext, saleId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await ctx.clock.sleep(backoffDelay(attempt, { baseMs: ctx.retryBaseMs, capMs: ctx.config.payments.reversalWaitingRetryCapMs, random: ctx.random }), ctx.stopSignal);
    if (!ctx.journal.retryWrites().writable) continue;
    const sale = ctx.journal.get(saleId);
    if (sale === undefined) return;
    // captureIfImmediate itself schedules the next wait if the journal fills again.
    return captureIfImmediate(ctx, sale);
  }
}
