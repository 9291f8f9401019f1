import { captureCheck, cancelCheck, refundCheck, type RuleCheck } from './rules.js';
import type { OperationName } from './schemas.js';
import { lookup, type PaymentDeps } from './transaction.js';
import type { Caller } from './types.js';

/** Allowed-operations record (docs/platform-contract.md, "Decisions where the spec is silent"). */
export interface AllowedOperation {
  allowed: boolean;
  maxAmount: number;
  currency: string;
}

export type AllowedOperationsAnswer =
  | AllowedOperation
  | (AllowedOperation & { operation: 'cancel' | 'refund'; operations: Record<OperationName, AllowedOperation> });

/**
 * GET /payment/v1/transactions/{transactionId}/allowedoperations (the agent asks
 * before offering cancel/refund/capture: docs/platform-contract.md, "Decisions where the
 * spec is silent", allowed operations record): the record for `?operation=`, or without it the record of the operation that applies now (cancel while
 * the payment can be cancelled, else refund) plus all three under `operations`.
 */
export function allowedOperations(deps: PaymentDeps, caller: Caller, id: string, operation: OperationName | undefined): AllowedOperationsAnswer {
  const tx = lookup(deps, caller, id);
  const now = deps.ctx.now();
  const record = (check: RuleCheck): AllowedOperation => ({ allowed: check.ok, maxAmount: check.maxAmount, currency: tx.amount.currency });
  const operations: Record<OperationName, AllowedOperation> = {
    cancel: record(cancelCheck(tx, now)),
    refund: record(refundCheck(tx, now)),
    capture: record(captureCheck(tx)),
  };
  if (operation !== undefined) return operations[operation];
  const applies = operations.cancel.allowed ? 'cancel' : 'refund';
  return { ...operations[applies], operation: applies, operations };
}
