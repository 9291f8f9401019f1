import type { SimTransaction } from './types.js';
import { walletACancelDeadline, walletBCancelDeadline, walletBRefundDeadline } from './windows.js';

export type RuleCheck = { ok: true; maxAmount: number } | { ok: false; code: string; message: string; maxAmount: 0 };

const refuse = (code: string, message: string): RuleCheck => ({ ok: false, code, message, maxAmount: 0 });

/** What is still authorized or paid and neither cancelled nor refunded. */
export const remainingAmount = (tx: SimTransaction): number => tx.amount.amount - tx.cancelled - tx.refunded;

/**
 * An uncaptured (or unpaid, or paid wallet
 * within its window) payment can be cancelled; a captured one is refunded instead
 * (docs/payments.md, "Capture, cancel, refund").
 */
export function cancelCheck(tx: SimTransaction, now: number): RuleCheck {
  if (tx.record.transactionType !== 'Payment')
    return refuse('CANCEL_NOT_ALLOWED', `a ${tx.record.transactionType} cannot be cancelled`);
  const status = tx.record.transactionStatus;
  if (status === 'Captured' || tx.captured > 0)
    return refuse('CANCEL_NOT_ALLOWED', 'a captured transaction cannot be cancelled: refund it instead');
  if (status === 'cancelled') return refuse('CANCEL_NOT_ALLOWED', 'the transaction is already cancelled');
  if (status !== 'Accepted' && status !== 'Initialized')
    return refuse('CANCEL_NOT_ALLOWED', `a ${status} transaction has nothing to cancel`);
  if (tx.instrumentType === 'walletA' && now >= walletACancelDeadline(tx.createdAt)) {
    return refuse(
      'CANCEL_WINDOW_CLOSED',
      'the walletA cancel period ended at 00:15 UTC+8 the day after the sale: refund instead',
    );
  }
  if (tx.instrumentType === 'walletB' && now >= walletBCancelDeadline(tx.createdAt)) {
    return refuse('CANCEL_WINDOW_CLOSED', 'the walletB cancel period (24 hours) is over: refund instead');
  }
  const left = remainingAmount(tx);
  if (left <= 0) return refuse('CANCEL_NOT_ALLOWED', 'nothing is left to cancel: the payment is fully refunded');
  return { ok: true, maxAmount: left };
}

/** What has been charged (captured card sale, paid wallet) and can be refunded. */
export function refundableAmount(tx: SimTransaction): number {
  if (tx.instrumentType === 'card') return tx.captured - tx.refunded;
  return tx.record.transactionStatus === 'Accepted' ? remainingAmount(tx) : 0;
}

/** walletB refund 180 days; an uncaptured card sale is cancelled, not refunded (docs/payments.md, "Capture, cancel, refund"). */
export function refundCheck(tx: SimTransaction, now: number): RuleCheck {
  if (tx.record.transactionType !== 'Payment')
    return refuse('REFUND_NOT_ALLOWED', `a ${tx.record.transactionType} cannot be refunded`);
  const status = tx.record.transactionStatus;
  // A captured card sale: `Captured`, or (strict profile) `Accepted` with something captured.
  const captured = status === 'Captured' || (status === 'Accepted' && tx.captured > 0);
  if (tx.instrumentType === 'card' && status === 'Accepted' && !captured)
    return refuse('REFUND_NOT_ALLOWED', 'the card sale is not captured: cancel it instead');
  if (tx.instrumentType === 'card' ? !captured : status !== 'Accepted') {
    return refuse('REFUND_NOT_ALLOWED', `a ${status} transaction has nothing to refund`);
  }
  if (tx.instrumentType === 'walletB' && now >= walletBRefundDeadline(tx.createdAt)) {
    return refuse('REFUND_WINDOW_CLOSED', 'the walletB refund period (180 days) is over');
  }
  const max = refundableAmount(tx);
  if (max <= 0) return refuse('REFUND_NOT_ALLOWED', 'the transaction is fully refunded');
  return { ok: true, maxAmount: max };
}

/** Only a card authorization with deferred capture is captured later (docs/platform-contract.md, "Decisions where the spec is silent", card sale statuses). */
export function captureCheck(tx: SimTransaction): RuleCheck {
  if (tx.record.transactionType !== 'Payment' || tx.instrumentType !== 'card')
    return refuse('CAPTURE_NOT_ALLOWED', 'only card sales are captured');
  const status = tx.record.transactionStatus;
  if (status === 'Captured' || tx.captured > 0)
    return refuse('CAPTURE_NOT_ALLOWED', 'the transaction is already captured');
  if (status !== 'Accepted') return refuse('CAPTURE_NOT_ALLOWED', `a ${status} transaction cannot be captured`);
  return { ok: true, maxAmount: remainingAmount(tx) };
}
