import { captureModeFor } from '../config/index.js';
import { backoffDelay, describeError, ErrorCodes, isAgentError } from '../core/index.js';
import type { JournalRow } from './journal/index.js';
import { isAlreadyCapturedRefusal, openOperations, sendCapture } from './operations.js';
import type { PaymentContext } from './payment-context.js';
import { isAuthorizedStatus } from './records.js';

const isCardMethod = (row: JournalRow): boolean =>
  row.method === 'card' || row.method === 'manual' || row.method === 'moto';

/** payments.captureMode of the sale's merchant, by any of its names (a sale naming none is the default merchant's). */
export function captureModeOf(ctx: PaymentContext, sale: JournalRow): 'immediate' | 'deferred' {
  const merchant = sale.merchantId ?? ctx.config.auth.merchantId;
  return captureModeFor(ctx.config.payments.captureMode, ctx.merchantNames(merchant));
}

/**
 * A card authorization the terminal captures: its merchant is configured `immediate`, and
 * the platform shows it authorized (`Accepted`, `Authorized`) with nothing captured. Any
 * other status word, known or not, is left to the platform (docs/payments.md,
 * "Capture, cancel, refund").
 */
export function needsImmediateCapture(ctx: PaymentContext, sale: JournalRow): boolean {
  if (sale.origin === 'web' || sale.kind !== 'sale' || sale.state !== 'approved' || !isCardMethod(sale)) return false;
  if (sale.capturedAmount > 0 || !isAuthorizedStatus(sale.platformStatus)) return false;
  if (sale.amount - sale.cancelledAmount <= 0) return false;
  return captureModeOf(ctx, sale) === 'immediate';
}

/**
 * payments.captureMode immediate for the sale's merchant (docs/payments.md, "Card
 * sale", "Capture, cancel, refund", "Start-up recovery", "Offline card sale and upload"):
 * an authorization the platform shows not captured is captured at once, whichever way the
 * sale got its answer (the process answer, a lookup after an unknown outcome or at
 * start-up, an offline upload). Once: a sale with something captured, or with a capture
 * under way, is left alone; a retried capture keeps the capture row's client id
 * (journalOperation). A capture the platform refuses because it captured already leaves
 * the sale recorded captured (sendCapture); any other failed capture leaves the sale
 * approved with a message to capture it later.
 */
export async function captureIfImmediate(ctx: PaymentContext, sale: JournalRow): Promise<void> {
  if (!needsImmediateCapture(ctx, sale)) return;
  if (openOperations(ctx, sale).capture > 0) return;
  try {
    await sendCapture(ctx, sale, sale.amount - sale.cancelledAmount);
  } catch (err) {
    if (isAlreadyCapturedRefusal(err)) return;
    if (isAgentError(err, ErrorCodes.JOURNAL_UNWRITABLE)) {
      // Its row could not be written, so nothing was sent: the capture waits for the journal
      // (docs/journal.md, "Journal", writes that fail) instead of leaving the authorization to expire.
      ctx.save(sale.clientTransactionId, {
        message:
          'approved and authorized; the capture waits until the journal can write (free space in the data directory)',
      });
      ctx.background('immediate capture waits for the journal', () =>
        captureWhenWritable(ctx, sale.clientTransactionId),
      );
      return;
    }
    ctx.save(sale.clientTransactionId, {
      message: `approved and authorized, but the capture failed (${describeError(err)}): capture it later`,
    });
  }
}

async function captureWhenWritable(ctx: PaymentContext, saleId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await ctx.clock.sleep(
      backoffDelay(attempt, {
        baseMs: ctx.retryBaseMs,
        capMs: ctx.config.payments.reversalWaitingRetryCapMs,
        random: ctx.random,
      }),
      ctx.stopSignal,
    );
    if (!ctx.journal.retryWrites().writable) continue;
    const sale = ctx.journal.get(saleId);
    if (sale === undefined) return;
    // captureIfImmediate itself schedules the next wait if the journal fills again.
    return captureIfImmediate(ctx, sale);
  }
}
