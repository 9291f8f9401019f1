import { randomUUID } from 'node:crypto';
import { ruleError } from './http-errors.js';
import { isoWithOffset } from './dates.js';
import type { Amount } from './money.js';
import { refundCheck } from './rules.js';
import type { RefundBody } from './schemas.js';
import { addEvent, moveMoney } from './bookkeeping.js';
import {
  checkApprovalCode,
  checkMatches,
  createTransaction,
  lookup,
  repeated,
  resultPrefix,
  snapshot,
  type PaymentDeps,
} from './transaction.js';
import { providerResultData, walletBRefundFees } from './wallet-data.js';
import { STRICT_COMPLETION_MS } from './completions.js';
import type { Caller, SimTransaction, TransactionRecord } from './types.js';

export interface RefundRequest {
  clientDateTime: string;
  channel: string;
  amount: Amount;
  clientTransactionId: string;
}

export const refundFingerprint = (payment: SimTransaction, amount: Amount): string =>
  JSON.stringify(['Refund', payment.record.serverTransactionId, amount.amount, amount.currency]);

/**
 * Creates the Refund record, status `Accepted` (the spec's answer to a refund), with
 * <wallet>RefundRequest then <wallet>RefundResult (card: cardRefundRequest/Result) carrying
 * refundId, refundAmount, refundTime (ISO 8601 with offset) and resultData. Several
 * partial refunds are allowed up to what was charged; more is refused. The strict profile
 * answers `Accepted` with the request event only: the refund is asynchronous, and its
 * result event and the money movement come a little later, the status word never changing
 * (docs/demo-platform.md, "Demo platform"), or its result is a failure (failRefund) when
 * the control call asked for one.
 */
export function performRefund(
  deps: PaymentDeps,
  caller: Caller,
  tx: SimTransaction,
  req: RefundRequest,
): TransactionRecord {
  const now = deps.ctx.now();
  const check = refundCheck(tx, now);
  if (!check.ok) throw ruleError(check.code, check.message);
  if (req.amount.amount > check.maxAmount) {
    throw ruleError(
      'AMOUNT_EXCEEDS',
      `refund amount ${req.amount.amount} exceeds the ${check.maxAmount} left to refund`,
    );
  }
  const later = deps.ctx.profile.strict;
  const refund = createTransaction(deps, caller, {
    now,
    type: 'Refund',
    clientTransactionId: req.clientTransactionId,
    status: 'Accepted',
    instrumentType: tx.instrumentType,
    amount: req.amount,
    fingerprint: refundFingerprint(tx, req.amount),
    related: tx,
  });
  const prefix = resultPrefix(tx);
  addEvent(refund, now, `${prefix}RefundRequest`, {
    clientDateTime: req.clientDateTime,
    refundAmount: { ...req.amount },
    instrument: { instrumentType: tx.instrumentType },
    ...(tx.instrumentType === 'walletB' ? walletBRefundFees(req.amount) : {}),
    source: { ...caller.source },
    requestor: {},
  });
  // What is refunded is taken at once, so nothing can be refunded twice while it completes.
  tx.refunded += req.amount.amount;
  tx.children.push(refund);
  deps.store.add(refund);
  if (!later) completeRefund(deps, refund);
  else {
    const fails = deps.completions.takeFailure();
    deps.completions.later(
      refund,
      STRICT_COMPLETION_MS,
      () => (fails ? failRefund(deps, refund) : completeRefund(deps, refund)),
      fails,
    );
  }
  return snapshot(refund);
}

/**
 * The refund's result: its result event, `Accepted` and the money given back. Everything it
 * needs is in the Refund record and the payment it acts upon, so a refund still pending when
 * the demo platform stopped completes after a restart (ledger-state.ts).
 */
export function completeRefund(deps: PaymentDeps, refund: SimTransaction): void {
  const tx = refund.related ?? refund;
  const at = deps.ctx.now();
  addEvent(refund, at, `${resultPrefix(tx)}RefundResult`, {
    result: 'Accepted',
    resultMessage: 'Refund accepted',
    refundId: randomUUID(),
    refundAmount: { ...refund.amount },
    // walletA answers in its own zone (UTC+8), the others in UTC; both with an explicit offset.
    refundTime: isoWithOffset(at, tx.instrumentType === 'walletA' ? 480 : 0),
    resultData: providerResultData(tx.instrumentType, tx.merchant),
  });
  refund.record.transactionStatus = 'Accepted';
  moveMoney(deps.ledger, refund, at, 'refund', refund.amount.amount, -refund.amount.amount);
}

/**
 * A refund answered `Accepted` fails asynchronously (the wallet refused it after the platform
 * answered `Accepted`): its result event says `Failed`, the status word stays as answered
 * (only the result event carries the outcome), nothing is given back, and the amount can
 * be refunded again.
 */
export function failRefund(deps: PaymentDeps, refund: SimTransaction): void {
  const tx = refund.related ?? refund;
  addEvent(refund, deps.ctx.now(), `${resultPrefix(tx)}RefundResult`, {
    result: 'Failed',
    resultMessage: 'Refund failed at the wallet provider',
    refundAmount: { ...refund.amount },
    resultData: providerResultData(tx.instrumentType, tx.merchant),
  });
  tx.refunded -= refund.amount.amount;
}

/** POST /payment/v1/transactions/{transactionId}/refund. */
export function refundTransaction(deps: PaymentDeps, caller: Caller, id: string, body: RefundBody): TransactionRecord {
  const tx = lookup(deps, caller, id);
  checkApprovalCode(caller, body.approvalCode);
  const existing = deps.store.byClient(caller.merchant.merchantId, body.clientNewTransactionId);
  if (existing !== undefined) return repeated(deps, existing, refundFingerprint(tx, body.refundAmount));
  checkMatches(tx, body.refundAmount, body.instrument.instrumentType);
  return performRefund(deps, caller, tx, {
    clientDateTime: body.clientDateTime,
    channel: body.channel,
    amount: body.refundAmount,
    clientTransactionId: body.clientNewTransactionId,
  });
}
