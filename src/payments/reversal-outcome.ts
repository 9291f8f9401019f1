import type { TransactionState } from './api.js';
import type { ourCancelIn } from './cancel-outcome.js';
import type { JournalRow } from './journal/index.js';
import { failureKind, isApprovalCodeRefusal, isNotFoundError } from './outcome.js';
import { capturedOf, classifyStatus, isCapturedStatus, recordStatus, type PlatformRecord } from './records.js';
import { isQrCallSale, QR_UNANSWERED_MESSAGE } from './qr-call.js';

/**
 * What each answer of a reversal means for the sale (docs/payments.md, "Unknown outcome:
 * resolution and reversal"; docs/platform-contract.md, "Decisions where the spec is silent",
 * reversal): how much goes back, whether an earlier attempt landed, and how a refused cancel
 * or the reversal's refund settles the sale. No I/O: reversal.ts asks the platform and writes
 * the journal.
 */

/** A state and message the sale is settled with. */
export interface Settlement {
  state: TransactionState;
  message: string;
}

const REVERSED_BY_REFUND = 'reversed by a refund (the sale was captured): nothing is charged';

/** The sale's refunds (with its cancels) gave back everything charged: what was captured, or the sale's amount when nothing was. */
export function refundedInFull(sale: JournalRow): boolean {
  return sale.refundedAmount > 0 && sale.refundedAmount + sale.cancelledAmount >= (sale.capturedAmount || sale.amount);
}

/** How a sale whose refund gave back everything is settled. */
export function reversedByRefund(): Settlement {
  return { state: 'reversed', message: REVERSED_BY_REFUND };
}

/** What the reversal's cancel asks back: what is left of the sale after its cancels and refunds. */
export function reversalCancelAmount(sale: JournalRow): number {
  return sale.amount - sale.cancelledAmount - sale.refundedAmount;
}

/** What the reversal's refund asks back: what was captured (the sale's amount when no capture is known) less what was refunded. */
export function reversalRefundAmount(sale: JournalRow): number {
  return (sale.capturedAmount || sale.amount) - sale.refundedAmount;
}

/** A cancel the reversal sent (reason Technical; a clerk's cancel is Functional). */
export function isReversalCancel(row: JournalRow): boolean {
  return row.kind === 'cancel' && row.cancelReason === 'Technical';
}

/** The reversal's cancel still in flight among a sale's operations: one per sale, reused by every attempt. */
export function openReversalCancel(related: readonly JournalRow[]): JournalRow | undefined {
  return related.find((r) => isReversalCancel(r) && r.state === 'in_flight');
}

/** The reversal's refund still in flight among a sale's operations (its answer was lost or not written). */
export function openReversalRefund(related: readonly JournalRow[]): JournalRow | undefined {
  return related.find((r) => r.kind === 'refund' && r.state === 'in_flight');
}

/** The reversal's cancel or refund the platform answered pending, followed until final. */
export function pendingReversalOperation(related: readonly JournalRow[]): JournalRow | undefined {
  return related.find((r) => r.state === 'pending' && (r.kind === 'refund' || isReversalCancel(r)));
}

/** What the reversal's cancel's answer means: reversed, not final yet (followed), or not done (settled from the sale's status). */
export function cancelAnswered(cancel: JournalRow): 'reversed' | 'pending' | 'refused' {
  if (cancel.state === 'approved') return 'reversed';
  if (cancel.state === 'pending') return 'pending';
  return 'refused';
}

/**
 * What a failed reversal cancel means: `retry` (not sent, no answer, or "not found" while the
 * sale's own request may still land: the grace since the sale's last update, when it became
 * reversing, has not passed), `not_found` (nothing to reverse), `approval_code` (a person
 * with the code must do it) or `refused` (settled from the sale's status).
 */
export function cancelFailed(
  err: unknown,
  saleUpdatedAt: string,
  now: number,
  lookupGraceMs: number,
): 'retry' | 'not_found' | 'approval_code' | 'refused' {
  if (isNotFoundError(err)) return now < Date.parse(saleUpdatedAt) + lookupGraceMs ? 'retry' : 'not_found';
  if (failureKind(err) !== 'refused') return 'retry';
  return isApprovalCodeRefusal(err) ? 'approval_code' : 'refused';
}

/**
 * Did an earlier attempt of the reversal's cancel, whose answer was lost, land? Yes when our
 * cancel is accepted in the sale's history or the sale is cancelled; 'pending' when our
 * cancel's request is there without its result (the platform is completing it); no otherwise.
 */
export function earlierCancelLanded(
  ours: ReturnType<typeof ourCancelIn>,
  saleStatus: string | undefined,
): boolean | 'pending' {
  if (ours === 'accepted' || classifyStatus(saleStatus) === 'cancelled') return true;
  return ours === 'unknown' ? 'pending' : false;
}

/** How the sale's status settles a reversal the platform refused: nothing charged, a refund of a captured sale, or a person's check. */
export type RefusedReversal =
  { kind: 'settled'; settlement: Settlement } | { kind: 'refund' } | { kind: 'attention'; settlement: Settlement };

/**
 * The platform would not cancel: the sale's record says what to do. Nothing charged
 * (cancelled, refused, failed, expired): settled from it. Captured (the status `Captured`,
 * or a capture event with an amount: a platform may answer an immediate capture `Accepted`
 * with its capture event, card sale statuses): refunded instead. Anything else: a person
 * checks it.
 */
export function afterRefusedCancel(record: PlatformRecord, currency: string, refusalReason: string): RefusedReversal {
  const status = recordStatus(record);
  const cls = classifyStatus(status);
  if (cls === 'cancelled')
    return { kind: 'settled', settlement: { state: 'reversed', message: 'reversed: nothing is charged' } };
  if (cls === 'refused')
    return {
      kind: 'settled',
      settlement: { state: 'declined', message: 'declined by the platform: nothing is charged' },
    };
  // classifyStatus names 'failed' or 'expired' only for a status it read.
  if (cls === 'failed' || cls === 'expired')
    return {
      kind: 'settled',
      settlement: { state: 'failed', message: `the platform reports ${status as string}: nothing is charged` },
    };
  if (cls === 'charged' && (isCapturedStatus(status) || (capturedOf(record, currency) ?? 0) > 0))
    return { kind: 'refund' };
  return {
    kind: 'attention',
    settlement: {
      state: 'needs_attention',
      message: `the sale could not be reversed (${refusalReason}); the platform reports "${status ?? ''}": check it and refund if charged`,
    },
  };
}

/** What a failed reversal refund means: `resolve` (it may have happened: looked up), `retry` (never sent), `refused`. */
export function refundFailed(err: unknown): 'resolve' | 'retry' | 'refused' {
  const kind = failureKind(err);
  if (kind === 'unknown') return 'resolve';
  return kind === 'not_sent' ? 'retry' : 'refused';
}

/**
 * The sale after the reversal's refund was answered or looked up: reversed when approved;
 * undefined (tried again) while it is pending, still in flight (its answer waits for the
 * journal) or found not to have happened; otherwise a person checks it.
 */
export function afterReversalRefund(
  refund: JournalRow,
  resolved: 'done' | 'not_happened' | 'unknown',
): Settlement | undefined {
  if (refund.state === 'approved') return reversedByRefund();
  if (refund.state === 'pending' || refund.state === 'in_flight' || resolved === 'not_happened') return undefined;
  return {
    state: 'needs_attention',
    message: `the reversal refund ended ${refund.state}: ${refund.message ?? ''}; check the sale`,
  };
}

/**
 * A sale set aside as `needs_attention` whose platform outcome was never recorded: no
 * platform status, not offline, and no reversal or refund of it tried (`related`: reads its
 * operations, only for a row that may qualify: start-up asks this of every row set aside;
 * those rows carry what a person must decide).
 */
export function outcomeNeverRecorded(row: JournalRow, related: () => readonly JournalRow[]): boolean {
  if (row.kind !== 'sale' || row.state !== 'needs_attention' || row.platformStatus !== undefined || row.offline)
    return false;
  // A terminal QR sale whose window closed without the platform's word is a person's to settle, not asked again at every start.
  if (row.message === QR_UNANSWERED_MESSAGE) return false;
  return !related().some((op) => op.kind === 'refund' || isReversalCancel(op));
}

/** What start-up recovery does with a row an earlier process left unsettled (docs/payments.md, "Start-up recovery"). */
export type RecoveryStep =
  'resume_reversal' | 'resolve_operation' | 'operation_not_sent' | 'resolve_sale' | 'sale_not_sent' | 'leave';

/**
 * Reversing: the reversal resumes. An operation in flight is resolved, one interrupted before
 * it was sent did nothing. A sale in flight or set aside with its outcome unknown is looked
 * up; one interrupted while waiting for the card or the scan (no platform id) was never
 * sent; one awaiting the customer with a platform id is left to the relay.
 */
export function recoveryStep(row: JournalRow): RecoveryStep {
  if (row.state === 'reversing') return 'resume_reversal';
  if (row.kind !== 'sale') return row.state === 'in_flight' ? 'resolve_operation' : 'operation_not_sent';
  if (row.state === 'in_flight' || row.state === 'needs_attention') return 'resolve_sale';
  if (row.serverTransactionId !== undefined) return 'leave';
  // A terminal QR call answered pending without a server id was sent (attempts) and may have charged: looked up, never "not sent".
  return isQrCallSale(row) && row.attempts >= 1 ? 'resolve_sale' : 'sale_not_sent';
}

/** A sale counted as not done turned up at the platform in a state that may charge (anything but refused, failed, expired or cancelled): it is reversed. */
export function landedLate(record: PlatformRecord): boolean {
  const cls = classifyStatus(recordStatus(record));
  return cls !== 'refused' && cls !== 'failed' && cls !== 'expired' && cls !== 'cancelled';
}
