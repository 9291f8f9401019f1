import { captureCheck, cancelCheck, refundCheck, type RuleCheck } from './rules.js';
import type { OperationName } from './schemas.js';
import { lookup, type PaymentDeps } from './transaction.js';
import type { Caller } from './types.js';

/** Allowed-operations record: exactly what the contract lists (docs/platform-contract.md, "Endpoints"). */
export interface AllowedOperation {
  allowed: boolean;
  maxAmount: number;
  currency: string;
}

export type AllowedOperationsAnswer =
  | AllowedOperation
  | (AllowedOperation & { operation: 'cancel' | 'refund'; operations: Record<OperationName, AllowedOperation> });

/**
 * GET /payment/v1/transactions/{transactionId}/allowedoperations: the record of the
 * operation that applies now (cancel while the payment can be cancelled, else refund;
 * docs/platform-contract.md, "Decisions where the spec is silent", allowed operations
 * record). Strict answers that record and nothing else; standard adds which operation it
 * is and all three under `operations`, and answers the old `?operation=` with that one's
 * record (docs/demo-platform.md, "Demo platform").
 */
export function allowedOperations(
  deps: PaymentDeps,
  caller: Caller,
  id: string,
  operation: OperationName | undefined,
  strict = false,
): AllowedOperationsAnswer {
  const tx = lookup(deps, caller, id);
  const now = deps.ctx.now();
  const record = (check: RuleCheck): AllowedOperation => ({
    allowed: check.ok,
    maxAmount: check.maxAmount,
    currency: tx.amount.currency,
  });
  const operations: Record<OperationName, AllowedOperation> = {
    cancel: record(cancelCheck(tx, now)),
    refund: record(refundCheck(tx, now)),
    capture: record(captureCheck(tx)),
  };
  const applies = operations.cancel.allowed ? 'cancel' : 'refund';
  if (strict) return operations[applies];
  if (operation !== undefined) return operations[operation];
  return { ...operations[applies], operation: applies, operations };
}
