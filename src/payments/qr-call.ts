import { backoffDelay } from '../core/index.js';
import { adoptSaleRecord } from './adopt.js';
import { QR_CHECKING_MESSAGE } from './checking.js';
import type { JournalRow } from './journal/index.js';
import { lateLandingIntervalCap } from './late-landing.js';
import type { PaymentContext } from './payment-context.js';
import { isUnknownIdAnswer } from './outcome.js';
import { classifyStatus, recordServerId, recordStatus, type PlatformRecord } from './records.js';
import { cancelDeadline, saleTime } from './rules.js';

/**
 * A sale sent through the terminal QR call (docs/payments.md, "Wallet QR, merchant
 * scan"; docs/platform-contract.md, "Decisions where the spec is silent", terminal QR call
 * answer). Its answer is not specified, and its `clientTransactionId` is a field of the QR
 * service's body: the payment API is not promised to know it. So the sale is asked of the
 * payment API by the server id an answer gave, and a "not found" for it (404, or 400 / 422)
 * is never the platform's word that nothing was charged: only a record the platform shows,
 * or a cancel it confirms, settles it.
 */
export function isQrCallSale(row: Pick<JournalRow, 'kind' | 'via'>): boolean {
  return row.kind === 'sale' && row.via === 'qrTerminal';
}

/**
 * The id a sale is asked of (and acted on at) the payment API by: a QR call sale's server id
 * once an answer gave one, else the client id (the only handle left: found by it, the record
 * is the platform's word; not found, it says nothing).
 */
export function platformIdOf(
  row: Pick<JournalRow, 'kind' | 'via' | 'clientTransactionId' | 'serverTransactionId'>,
): string {
  return isQrCallSale(row) && row.serverTransactionId !== undefined ? row.serverTransactionId : row.clientTransactionId;
}

/** "Not found" is the platform's word that a sale did not happen only for a sale whose id it promised to know (process's clientNewTransactionId). */
export function notFoundIsPlatformWord(row: Pick<JournalRow, 'kind' | 'via'>): boolean {
  return !isQrCallSale(row);
}

export { QR_CHECKING_MESSAGE } from './checking.js';

/** The verdict once the platform's window for the sale closed without its word: a person settles it. */
export const QR_UNANSWERED_MESSAGE =
  'the platform never gave the outcome of this terminal QR sale before its cancel window closed: check the payment with the platform or the wallet provider (by the order id and amount) and refund it there if it was charged; do not take it again before that';

/**
 * Until when the platform is asked about a QR call sale: its wallet's cancel window (walletA
 * until 00:15 UTC+8 on the next day, walletB 24 h), after which a charged sale can no longer
 * be voided and a person must settle it; `payments.lateLandingWatchMs` after the sale for a
 * method with no such window.
 */
export function qrCheckEnd(row: JournalRow, lateLandingWatchMs: number): number {
  return cancelDeadline(row) ?? saleTime(row) + Math.max(lateLandingWatchMs, 0);
}

/** The platform's window for the sale closed without its word: set aside for a person (final). */
export function qrWindowClosed(ctx: PaymentContext, saleId: string): JournalRow {
  ctx.log.warn(
    { clientTransactionId: saleId },
    'terminal QR sale: no word from the platform within its window; needs attention',
  );
  return ctx.save(saleId, { state: 'needs_attention', message: QR_UNANSWERED_MESSAGE });
}

/**
 * The platform gave no word on a QR call sale (its answer said nothing, and the payment API
 * does not know the id asked): the row stays `in_flight`, "outcome being checked: do not
 * repeat", and is asked again in the background until the platform answers or the window
 * closes (then `needs_attention`). Start-up recovery resumes it (an `in_flight` sale).
 */
export function keepChecking(ctx: PaymentContext, saleId: string): JournalRow {
  const row = ctx.journal.require(saleId);
  if (ctx.clock.wall() >= qrCheckEnd(row, ctx.config.payments.lateLandingWatchMs)) return qrWindowClosed(ctx, saleId);
  const saved =
    row.state === 'in_flight' && row.message === QR_CHECKING_MESSAGE
      ? row
      : ctx.save(saleId, { state: 'in_flight', message: QR_CHECKING_MESSAGE });
  // One check per sale, however many ways reach it (the flow, a parked sale's lookup, recovery).
  const running = checking.get(ctx) ?? new Set<string>();
  checking.set(ctx, running);
  if (!running.has(saleId)) {
    running.add(saleId);
    ctx.background('check a terminal QR sale', () =>
      checkUntilAnswered(ctx, saleId).finally(() => running.delete(saleId)),
    );
  }
  return saved;
}

/** The sales whose check runs, per payments context. */
const checking = new WeakMap<PaymentContext, Set<string>>();

/**
 * Asks the payment API for the sale (by `platformIdOf`) with a growing interval (as the
 * late-landing watch: a tenth of the time since, 30 s to 10 min), while the row is still
 * being checked. A record found is adopted; "not found" and failures are asked again.
 */
async function checkUntilAnswered(ctx: PaymentContext, saleId: string): Promise<void> {
  const since = ctx.clock.wall();
  for (let attempt = 0; ; attempt++) {
    const before = ctx.journal.get(saleId);
    if (before === undefined || before.state !== 'in_flight' || before.message !== QR_CHECKING_MESSAGE) return;
    const end = qrCheckEnd(before, ctx.config.payments.lateLandingWatchMs);
    const now = ctx.clock.wall();
    if (now >= end) {
      qrWindowClosed(ctx, saleId);
      return;
    }
    const cap = lateLandingIntervalCap(now - since);
    await ctx.clock.sleep(
      Math.min(end - now, backoffDelay(attempt, { baseMs: ctx.retryBaseMs, capMs: cap, random: ctx.random })),
      ctx.stopSignal,
    );
    const row = ctx.journal.get(saleId);
    if (row === undefined || row.state !== 'in_flight' || row.message !== QR_CHECKING_MESSAGE) return;
    let record: PlatformRecord;
    try {
      record = await ctx.platform.status(platformIdOf(row), ctx.callOptions(row));
    } catch (err) {
      if (!isUnknownIdAnswer(err))
        ctx.log.info({ clientTransactionId: saleId }, 'terminal QR sale not readable now; asking again');
      continue;
    }
    // Still pending, and still no server id to follow it by: this check goes on following it.
    if (
      classifyStatus(recordStatus(record)) === 'pending' &&
      recordServerId(record) === undefined &&
      row.serverTransactionId === undefined
    )
      continue;
    adoptQrRecord(ctx, row, record);
    return;
  }
}

/** The platform's record of a QR call sale, adopted; one still waiting for the wallet is followed by the relay. */
export function adoptQrRecord(ctx: PaymentContext, row: JournalRow, record: PlatformRecord): JournalRow {
  const adopted = adoptSaleRecord(ctx, row, record);
  if (adopted.row.state === 'awaiting_customer' && adopted.row.serverTransactionId !== undefined)
    ctx.notifyTracking(adopted.row);
  return adopted.row;
}
