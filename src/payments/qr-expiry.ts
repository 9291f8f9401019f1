import { backoffDelay, describeError, ErrorCodes, isAgentError } from '../core/index.js';
import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { formatAmount } from './money.js';
import { sendCancel } from './operations.js';
import { classifyStatus } from './records.js';

/**
 * A consumer-scan QR whose `expireTime` passed while the platform still reported the payment
 * pending (docs/payments.md, "Wallet QR, consumer scan", expiry). The expiry on the
 * terminal's side is not an outcome: the customer may have paid in the last second and the
 * platform learn it from the wallet provider later. So the sale becomes `pending` (outcome
 * being checked, the QR no longer shown), the platform is asked to cancel the payment (a
 * `Technical` cancel, the spec's reversal: the terminal's own, with no person at hand to
 * give an approval code, of a payment whose outcome it does not know), and the sale is
 * followed (the event relay's status calls) until the platform reports it final. Whatever
 * it reports is adopted: the cancel confirmed (`reversed`), `cancelled`, `Expired` or
 * `Failed` (nothing was charged, on the platform's word), or a late `Accepted` (approved:
 * the platform kept the customer's payment, after refusing the cancel).
 */

/** What the clerk and the register see while the platform has not said. */
export const QR_EXPIRED_CHECKING =
  'the QR code expired before the platform reported a payment: the platform is asked to cancel it; outcome being checked, do not take the payment again';

/** The customer display while the outcome is checked (the QR is taken off). */
const DISPLAY_CHECKING = 'QR code expired: checking';

/** The cancels the expiry sent: a `Technical` cancel of a sale that is `pending` comes from nothing else (a reversal makes the sale `reversing` first). */
export function expiryCancels(ctx: Pick<PaymentContext, 'journal'>, saleId: string): JournalRow[] {
  return ctx.journal.related(saleId).filter((r) => r.kind === 'cancel' && r.cancelReason === 'Technical');
}

/** A consumer-scan sale at the platform whose QR expiry is (or may be) handled here. */
export function isQrSale(row: JournalRow): boolean {
  return row.kind === 'sale' && row.scenario === 'ConsumerScan' && row.serverTransactionId !== undefined;
}

/**
 * The message a sale whose QR expired ends with, by what the platform reported
 * (undefined: keep the one it has). "Nothing was charged" only on the platform's word.
 */
export function expiryOutcomeMessage(row: JournalRow): string | undefined {
  switch (row.state) {
    case 'reversed':
    case 'cancelled':
      return 'the QR code expired: the platform cancelled the payment, nothing was charged';
    case 'approved':
      return `approved: ${formatAmount(row.amount, row.currency)} (the customer paid as the QR code expired; the platform kept the payment)`;
    case 'failed': {
      const cls = classifyStatus(row.platformStatus);
      if (cls !== 'failed' && cls !== 'expired') return undefined;
      return `the QR code expired: the platform reports ${row.platformStatus ?? ''} (${row.message ?? 'no reason given'}): nothing was charged`;
    }
    default:
      return undefined;
  }
}

/**
 * The QR's expiry passed with the payment still pending at the platform: the sale becomes
 * `pending` (quietly: the caller, the relay, publishes the view) and the cancel is asked for
 * in the background. Idempotent: a sale already `pending` only has its follow-up resumed
 * when none runs. Anything else (final, not a QR sale at the platform) is returned as it is.
 */
export function expireQr(ctx: PaymentContext, saleId: string, follow: (saleId: string) => void): JournalRow {
  const row = ctx.journal.require(saleId);
  if (!isQrSale(row) || (row.state !== 'awaiting_customer' && row.state !== 'pending')) return row;
  let saved = row;
  if (row.state === 'awaiting_customer') {
    saved = ctx.save(saleId, { state: 'pending', message: QR_EXPIRED_CHECKING }, { quiet: true });
    ctx.log.info(
      { clientTransactionId: saleId },
      'QR expired with the payment still pending at the platform: asking the platform to cancel it',
    );
    const amount = formatAmount(row.amount, row.currency);
    ctx.background('show QR expired', () =>
      ctx.bestEffort('display', () => ctx.devices.display.showText([amount, DISPLAY_CHECKING])),
    );
  }
  follow(saleId);
  return saved;
}

/**
 * Sends the expiry's cancel until the platform has answered it, then waits for the sale to be
 * final; `onFinal` gets the final row. A cancel the platform never received (unreachable, not
 * found after the lookup grace) is sent again after a backoff; one it refused, or answered as
 * not done, is not: the sale is then followed until the platform reports it final on its own
 * (a refused cancel often means the customer is paying). A cancel whose outcome is unknown is
 * settled by the operations' own lookup (operations.ts) and start-up recovery. Ends when the
 * service stops (the relay and start-up recovery resume it).
 */
export async function followExpiredQr(
  ctx: PaymentContext,
  saleId: string,
  onFinal: (row: JournalRow) => void,
): Promise<void> {
  let finished = false;
  const finish = (row: JournalRow): void => {
    if (finished) return;
    finished = true;
    onFinal(row);
  };
  // The platform's word reaches the row by whichever path (the cancel's answer, the relay, a
  // lookup): `finish` runs as it does, before the sale's `done` is told.
  const forget = ctx.whenSettled(saleId, finish);
  try {
    await untilFinal(ctx, saleId, finish);
  } finally {
    forget();
  }
}

async function untilFinal(ctx: PaymentContext, saleId: string, finish: (row: JournalRow) => void): Promise<void> {
  const final = ctx.waitFor(saleId).then(() => undefined);
  const refused = new Set<string>();
  for (let attempt = 0; ; attempt++) {
    const sale = ctx.journal.get(saleId);
    if (sale === undefined) return;
    if (sale.state !== 'pending') {
      finish(sale);
      return;
    }
    const cancels = expiryCancels(ctx, saleId);
    const open = cancels.some((c) => c.state === 'in_flight' || c.state === 'pending');
    const answered = cancels.some(
      (c) =>
        c.state === 'approved' ||
        c.state === 'declined' ||
        c.state === 'needs_attention' ||
        refused.has(c.clientTransactionId),
    );
    if (!open && !answered) await sendExpiryCancel(ctx, sale, refused);
    const now = ctx.journal.get(saleId);
    if (now !== undefined && now.state !== 'pending') continue;
    const delay = backoffDelay(attempt, {
      baseMs: ctx.retryBaseMs,
      capMs: ctx.config.payments.reversalWaitingRetryCapMs,
      random: ctx.random,
    });
    await Promise.race([final, ctx.clock.sleep(delay, ctx.stopSignal)]);
    if (ctx.stopSignal.aborted) return;
  }
}

/** One cancel of the expiry: remembers a refusal, lets anything else be tried again. */
async function sendExpiryCancel(ctx: PaymentContext, sale: JournalRow, refused: Set<string>): Promise<void> {
  const left = sale.amount - sale.cancelledAmount - sale.refundedAmount;
  try {
    const op = await sendCancel(ctx, sale, left, { reason: 'Technical' });
    // Answered, but not done (a refused or failed result): the platform's word on the cancel.
    if (op.state === 'failed' || op.state === 'declined') refused.add(op.clientTransactionId);
  } catch (err) {
    const id =
      isAgentError(err) && typeof err.details?.clientTransactionId === 'string'
        ? err.details.clientTransactionId
        : undefined;
    if (isAgentError(err, ErrorCodes.PAYMENT_RULE) && id !== undefined) {
      refused.add(id);
      ctx.log.info(
        { clientTransactionId: sale.clientTransactionId, err: describeError(err) },
        'the platform refused to cancel the expired QR payment; following it until the platform reports it final',
      );
      return;
    }
    // Not sent, not found after the grace, credentials, the journal: tried again after the backoff.
    ctx.log.warn(
      { clientTransactionId: sale.clientTransactionId, err: describeError(err) },
      'the cancel of the expired QR payment did not reach the platform; trying again',
    );
  }
}
