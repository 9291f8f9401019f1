import { ruleError } from './http-errors.js';
import { captureCheck, remainingAmount } from './rules.js';
import type { CaptureBody } from './schemas.js';
import { addEvent, moveMoney } from './bookkeeping.js';
import { checkMatches, lookup, snapshot, type PaymentDeps } from './transaction.js';
import type { Amount } from './money.js';
import type { Caller, SimTransaction, TransactionRecord } from './types.js';

/**
 * Captures an authorized card sale, fully or partly (capture body
 * `{clientDateTime, channel, captureAmount}`: docs/platform-contract.md, "Decisions where
 * the spec is silent"): status `Captured`, a cardCaptureResult
 * event, and the uncaptured rest of the authorization released. The strict profile keeps
 * the status `Accepted` (the spec shows no capture answer, so no status word is promised):
 * what is captured shows in the event and in what the platform allows next
 * (docs/demo-platform.md, "Demo platform").
 */
function performCapture(deps: PaymentDeps, tx: SimTransaction, clientDateTime: string, amount: Amount): void {
  const check = captureCheck(tx);
  if (!check.ok) throw ruleError(check.code, check.message);
  if (amount.amount > check.maxAmount)
    throw ruleError('AMOUNT_EXCEEDS', `capture amount ${amount.amount} exceeds the authorized ${check.maxAmount}`);
  const now = deps.ctx.now();
  tx.captured = amount.amount;
  if (!deps.ctx.profile.strict) tx.record.transactionStatus = 'Captured';
  const released = check.maxAmount - amount.amount;
  addEvent(tx, now, 'cardCaptureResult', {
    clientDateTime,
    captureAmount: { ...amount },
    result: 'Accepted',
    resultMessage: released > 0 ? 'Partially captured' : 'Captured',
    resultData: { acquirerId: tx.merchant.acquirerId, acquirerName: tx.merchant.acquirerName },
  });
  moveMoney(deps.ledger, tx, now, 'capture', amount.amount, 0);
  if (released > 0) moveMoney(deps.ledger, tx, now, 'release', released, -released);
}

/** POST /payment/v1/transactions/{transaction_id}/capture. */
export function captureTransaction(
  deps: PaymentDeps,
  caller: Caller,
  id: string,
  body: CaptureBody,
): TransactionRecord {
  const tx = lookup(deps, caller, id);
  checkMatches(tx, body.captureAmount);
  // A retried capture of the same amount answers the captured transaction. Strict: the
  // contract promises no such answer, so a sale captured already is refused like any other
  // capture the rules forbid (docs/demo-platform.md, "Demo platform").
  if (
    !deps.ctx.profile.strict &&
    tx.captured > 0 &&
    tx.captured === body.captureAmount.amount &&
    tx.instrumentType === 'card'
  )
    return snapshot(tx);
  performCapture(deps, tx, body.clientDateTime, body.captureAmount);
  return snapshot(tx);
}

/**
 * POST /payment/v1/transactions/captureall (body `{clientDateTime,
 * channel}`, answer `{transactions: [records]}`: docs/platform-contract.md, "Decisions
 * where the spec is silent"): every authorized card sale of the merchant,
 * each for what is left of its authorization.
 */
export function captureAll(
  deps: PaymentDeps,
  caller: Caller,
  clientDateTime: string,
): { transactions: TransactionRecord[] } {
  const transactions: TransactionRecord[] = [];
  for (const tx of deps.store.all()) {
    if (tx.merchant.merchantId !== caller.merchant.merchantId || tx.record.transactionType !== 'Payment') continue;
    if (tx.instrumentType !== 'card' || tx.record.transactionStatus !== 'Accepted' || tx.captured > 0) continue;
    performCapture(deps, tx, clientDateTime, { amount: remainingAmount(tx), currency: tx.amount.currency });
    transactions.push(snapshot(tx));
  }
  return { transactions };
}
