import type { SimHttpError } from '../router.js';
import { conflictError, ruleError } from './http-errors.js';
import { cancelCheck, remainingAmount } from './rules.js';
import type { CancelBody } from './schemas.js';
import { addEvent, moveMoney } from './bookkeeping.js';
import {
  checkApprovalCode,
  checkMatches,
  createTransaction,
  derivedClientId,
  lookup,
  repeated,
  resultPrefix,
  snapshot,
  type PaymentDeps,
} from './transaction.js';
import { providerResultData } from './wallet-data.js';
import type { Caller, SimTransaction, TransactionRecord } from './types.js';
import type { Amount } from './money.js';
import { STRICT_COMPLETION_MS } from './completions.js';

export interface CancelRequest {
  clientDateTime: string;
  channel: string;
  cancelReason: 'Technical' | 'Functional';
  amount: Amount;
  clientTransactionId: string | undefined;
}

const cancelFingerprint = (payment: SimTransaction, amount: Amount): string =>
  JSON.stringify(['Cancel', payment.record.serverTransactionId, amount.amount, amount.currency]);

/** Whether a cancel of `amount` would be accepted now; the refusal to throw otherwise. */
export function cancelRefusal(deps: PaymentDeps, tx: SimTransaction, amount: Amount): SimHttpError | undefined {
  const refusesFrom = tx.pending?.refusesCancelFrom;
  if (tx.record.transactionStatus === 'Initialized' && refusesFrom !== undefined && deps.ctx.now() >= refusesFrom) {
    // Strict, late payment (process-wallet.ts): the consumer is paying at the provider, which refuses to cancel.
    return conflictError(
      'WALLET_PAYMENT_COMPLETING',
      'the consumer is completing the payment at the wallet provider: it cannot be cancelled now',
    );
  }
  const check = cancelCheck(tx, deps.ctx.now());
  if (!check.ok) return ruleError(check.code, check.message);
  if (amount.amount > check.maxAmount)
    return ruleError(
      'AMOUNT_EXCEEDS',
      `cancel amount ${amount.amount} exceeds the ${check.maxAmount} that can be cancelled`,
    );
  if (amount.amount < check.maxAmount) {
    // Partial cancel depends on the acquirer (seed: merchant partialCancel; docs/demo-platform.md, "Demo platform").
    if (!tx.merchant.partialCancel)
      return ruleError('PARTIAL_CANCEL_NOT_ALLOWED', "the merchant's acquirer does not allow partial cancels");
    if (tx.record.transactionStatus === 'Initialized')
      return ruleError('PARTIAL_CANCEL_NOT_ALLOWED', 'a pending wallet payment is cancelled in full');
  }
  return undefined;
}

/**
 * Creates the Cancel record (events cancelRequest then <wallet>CancelResult; card:
 * cardCancelResult) and gives the money back. Technical = reversal, Functional = void
 * (docs/platform-contract.md, "Endpoints", cancel). The payment becomes `cancelled` once
 * nothing is left. The same events go into the payment's own history (the status call
 * returns a transaction's whole history), which is where a client that sent no id finds
 * its cancel again (docs/platform-contract.md, "Decisions where the spec is silent",
 * recognising a cancel). The strict profile answers the cancel of a charged payment
 * `cancelled` (the spec's answer to a cancel) with the request event only; its result
 * event and the money movement come a little later, the status word never changing
 * (docs/demo-platform.md, "Demo platform"), or its result is a failure (failCancel) when
 * the control call asked for one. A pending wallet payment has nothing charged to give back,
 * so its cancel is final at once in both profiles.
 */
export function performCancel(
  deps: PaymentDeps,
  caller: Caller,
  tx: SimTransaction,
  req: CancelRequest,
): TransactionRecord {
  const refusal = cancelRefusal(deps, tx, req.amount);
  if (refusal !== undefined) throw refusal;
  const now = deps.ctx.now();
  const charged = tx.record.transactionStatus === 'Accepted';
  const later = deps.ctx.profile.strict && charged;
  const cancel = createTransaction(deps, caller, {
    now,
    type: 'Cancel',
    clientTransactionId: req.clientTransactionId ?? derivedClientId(deps, tx, 'cancel'),
    status: 'cancelled',
    instrumentType: tx.instrumentType,
    amount: req.amount,
    fingerprint: cancelFingerprint(tx, req.amount),
    related: tx,
  });
  // Both events go into the cancel's record and the payment's own history.
  for (const history of [cancel, tx]) {
    addEvent(history, now, 'cancelRequest', {
      clientDateTime: req.clientDateTime,
      cancelAmount: { ...req.amount },
      cancelReason: req.cancelReason,
      instrument: { instrumentType: tx.instrumentType },
      source: { ...caller.source },
      requestor: {},
    });
  }
  if (tx.record.transactionStatus === 'Initialized') deps.wallets.release(tx);
  // What is cancelled is taken at once, so nothing can be cancelled twice while it completes.
  tx.cancelled += req.amount.amount;
  tx.children.push(cancel);
  deps.store.add(cancel);
  if (!later) completeCancel(deps, cancel, charged);
  else {
    const fails = deps.completions.takeFailure();
    deps.completions.later(
      cancel,
      STRICT_COMPLETION_MS,
      () => (fails ? failCancel(deps, cancel) : completeCancel(deps, cancel, charged)),
      fails,
    );
  }
  return snapshot(cancel);
}

/**
 * The cancel's result: result events in both histories, `cancelled`, and the money given back
 * when the payment was charged. Everything it needs is in the Cancel record (its reason in
 * its cancelRequest event) and the payment, so a cancel still pending when the demo
 * platform stopped completes after a restart (ledger-state.ts; only a charged payment's
 * cancel is ever pending).
 */
export function completeCancel(deps: PaymentDeps, cancel: SimTransaction, charged: boolean): void {
  const tx = cancel.related ?? cancel;
  const at = deps.ctx.now();
  const reason = cancel.record.events.find((e) => e.eventType === 'cancelRequest')?.['cancelReason'];
  const resultData = {
    ...providerResultData(tx.instrumentType, tx.merchant),
    ...(tx.paymentId !== undefined ? { paymentId: tx.paymentId } : {}),
  };
  for (const history of [cancel, tx]) {
    addEvent(history, at, `${resultPrefix(tx)}CancelResult`, {
      result: 'Accepted',
      resultMessage: reason === 'Technical' ? 'Reversed' : 'Voided',
      resultData: { ...resultData },
    });
  }
  cancel.record.transactionStatus = 'cancelled';
  if (remainingAmount(tx) <= 0) tx.record.transactionStatus = 'cancelled';
  if (charged)
    moveMoney(
      deps.ledger,
      cancel,
      at,
      reason === 'Technical' ? 'reversal' : 'cancel',
      cancel.amount.amount,
      -cancel.amount.amount,
    );
}

/**
 * A cancel answered `cancelled` fails asynchronously: result events saying `Failed` in both
 * histories, the status words stay as answered (only the result event carries the
 * outcome), nothing is given back, and the amount can be cancelled again.
 */
export function failCancel(deps: PaymentDeps, cancel: SimTransaction): void {
  const tx = cancel.related ?? cancel;
  const at = deps.ctx.now();
  for (const history of [cancel, tx]) {
    addEvent(history, at, `${resultPrefix(tx)}CancelResult`, {
      result: 'Failed',
      resultMessage: 'Cancel failed at the wallet provider',
      resultData: providerResultData(tx.instrumentType, tx.merchant),
    });
  }
  tx.cancelled -= cancel.amount.amount;
}

/** POST /payment/v1/transactions/{transactionId}/cancel. */
export function cancelTransaction(deps: PaymentDeps, caller: Caller, id: string, body: CancelBody): TransactionRecord {
  const tx = lookup(deps, caller, id);
  // A Technical cancel is the terminal's own reversal of an unknown
  // outcome, sent without a person at hand, so the supervisor approval code applies to
  // voids (Functional) only (docs/platform-contract.md, "Decisions where the spec is
  // silent", reversal).
  if (body.cancelReason !== 'Technical') checkApprovalCode(caller, body.approvalCode);
  // The contract's cancel body has no client id and promises nothing for a repeated cancel:
  // strict treats every cancel as new, so one sent again after a lost answer is refused
  // once nothing is left (docs/demo-platform.md, "Demo platform"). Standard still
  // recognises an old client's id and answers a cancelled payment's last Cancel.
  const strict = deps.ctx.profile.strict;
  if (!strict && body.clientNewTransactionId !== undefined) {
    const existing = deps.store.byClient(caller.merchant.merchantId, body.clientNewTransactionId);
    if (existing !== undefined) return repeated(deps, existing, cancelFingerprint(tx, body.cancelAmount));
  }
  if (!strict && tx.record.transactionType === 'Payment' && tx.record.transactionStatus === 'cancelled') {
    const done = tx.children.filter((c) => c.record.transactionType === 'Cancel').at(-1);
    if (done !== undefined) return snapshot(done);
  }
  checkMatches(tx, body.cancelAmount, body.instrument.instrumentType);
  return performCancel(deps, caller, tx, {
    clientDateTime: body.clientDateTime,
    channel: body.channel,
    cancelReason: body.cancelReason,
    amount: body.cancelAmount,
    clientTransactionId: strict ? undefined : body.clientNewTransactionId,
  });
}
