import { cancelRefusal, performCancel } from './cancel.js';
import { performRefund } from './refund.js';
import { cancelCheck, refundCheck } from './rules.js';
import type { RefundByWebBody } from './schemas.js';
import { checkMatches, derivedClientId, lookup, repeated, type PaymentDeps } from './transaction.js';
import type { Caller, TransactionRecord } from './types.js';

/**
 * POST /payment/v1/transactions/{transactionId}/refundbyweb (body
 * `{clientDateTime, clientNewTransactionId, amount}`; the platform picks cancel or refund
 * and answers that record: docs/platform-contract.md, "Endpoints"). No approval code for
 * by-web operations (docs/platform-contract.md, "Decisions where the spec is silent").
 *
 * The contract does not promise that the platform records the `clientNewTransactionId` the
 * client invented: the strict profile keeps none (the record gets an id of the platform's
 * own, as a cancel without one does), so the status call by that id answers 404 although
 * the cancel or refund exists, and the same body sent again is a new one. The payment acted
 * upon knows it: its remaining amount (allowed operations) and, for a cancel, its history
 * (docs/demo-platform.md, "Demo platform").
 */
export function refundByWeb(deps: PaymentDeps, caller: Caller, id: string, body: RefundByWebBody): TransactionRecord {
  const tx = lookup(deps, caller, id);
  const strict = deps.ctx.profile.strict;
  const existing = strict ? undefined : deps.store.byClient(caller.merchant.merchantId, body.clientNewTransactionId);
  if (existing !== undefined) {
    // The earlier answer may be a Cancel or a Refund: the same payment and amount make it the same request.
    const same =
      existing.related === tx &&
      existing.amount.amount === body.amount.amount &&
      existing.amount.currency === body.amount.currency;
    return repeated(deps, existing, same ? existing.fingerprint : 'a different request');
  }
  checkMatches(tx, body.amount);
  const now = deps.ctx.now();
  const cancelable = cancelCheck(tx, now).ok;
  const cancelProblem = cancelable ? cancelRefusal(deps, tx, body.amount) : undefined;
  if (cancelable && (cancelProblem === undefined || !refundCheck(tx, now).ok)) {
    return performCancel(deps, caller, tx, {
      clientDateTime: body.clientDateTime,
      channel: 'web',
      cancelReason: 'Functional',
      amount: body.amount,
      clientTransactionId: strict ? undefined : body.clientNewTransactionId,
    });
  }
  return performRefund(deps, caller, tx, {
    clientDateTime: body.clientDateTime,
    channel: 'web',
    amount: body.amount,
    clientTransactionId: strict ? derivedClientId(deps, tx, 'refund') : body.clientNewTransactionId,
  });
}
