import { AgentError, ErrorCodes } from '../core/index.js';
import type { AllowedOperationsView, AllowedOperationView, OperationReasonCode } from './api.js';
import type { JournalRow } from './journal/index.js';
import { formatAmount } from './money.js';
import { isCapturedStatus } from './records.js';

/**
 * Payment rules checked before a request leaves (docs/payments.md, "Capture, cancel,
 * refund"; docs/platform-contract.md, "Decisions where the spec is silent"). Each refusal is a PAYMENT_RULE error a person can act on; `details.suggest`
 * names the operation to use instead.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UTC8 = 8 * HOUR;

/** walletA cancel until 00:15 UTC+8 on the day after the sale; first instant it is too late (docs/platform-contract.md, "Decisions where the spec is silent", windows). */
export function walletACancelDeadline(saleAt: number): number {
  const local = new Date(saleAt + UTC8);
  const localMidnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  return localMidnight + DAY + 15 * 60_000 - UTC8;
}

/** walletB cancel in the first 24 hours after the sale (docs/platform-contract.md, "Decisions where the spec is silent", windows). */
export function walletBCancelDeadline(saleAt: number): number {
  return saleAt + DAY;
}

/** walletB refund up to 180 days after the sale, the last instant still allowed (docs/platform-contract.md, "Decisions where the spec is silent", windows). */
export function walletBRefundLastInstant(saleAt: number): number {
  return saleAt + 180 * DAY;
}

export function saleTime(sale: JournalRow): number {
  const t = Date.parse(sale.clientDateTime);
  return Number.isNaN(t) ? Date.parse(sale.createdAt) : t;
}

/** First instant at which the sale can no longer be cancelled, when a wallet limits it. */
export function cancelDeadline(sale: JournalRow): number | undefined {
  if (sale.method === 'walletA') return walletACancelDeadline(saleTime(sale));
  if (sale.method === 'walletB') return walletBCancelDeadline(saleTime(sale));
  return undefined;
}

/** PAYMENT_RULE: a rule refuses the operation; PAYMENT_STATE: the sale's state does not allow it. */
type RefusalCode = typeof ErrorCodes.PAYMENT_RULE | typeof ErrorCodes.PAYMENT_STATE;

export function ruleError(
  message: string,
  details: Record<string, unknown> = {},
  code: RefusalCode = ErrorCodes.PAYMENT_RULE,
): AgentError {
  return new AgentError(code, message, { details });
}

const isCard = (sale: JournalRow): boolean =>
  sale.method === 'card' || sale.method === 'manual' || sale.method === 'moto';

/** Operations of a sale still open at the platform (sent, outcome not final), by kind. */
export interface OpenOperations {
  refund: number;
  cancel: number;
  capture: number;
}

export interface Refusal {
  /** The refusal as a stable code (docs/local-api.md, "Allowed operations"). */
  reasonCode: OperationReasonCode;
  message: string;
  details: Record<string, unknown>;
  code: RefusalCode;
}

type Check = { ok: true; maxAmount: number } | { ok: false; refusal: Refusal };

const refuse = (
  reasonCode: OperationReasonCode,
  message: string,
  details: Record<string, unknown> = {},
  code: RefusalCode = ErrorCodes.PAYMENT_RULE,
): Check => ({
  ok: false,
  refusal: { reasonCode, message, details, code },
});

function saleUsable(sale: JournalRow, op: string): Check | undefined {
  if (sale.kind !== 'sale')
    return refuse(
      'NOT_A_SALE',
      `only a sale can be ${op}; ${sale.clientTransactionId} is a ${sale.kind}`,
      {},
      ErrorCodes.PAYMENT_STATE,
    );
  if (sale.state === 'offline_stored')
    return refuse(
      'NOT_UPLOADED',
      `the sale was taken offline and is not uploaded yet: it can be ${op} once the platform has it`,
      {},
      ErrorCodes.PAYMENT_STATE,
    );
  if (sale.state !== 'approved')
    return refuse(
      'NOT_APPROVED',
      `a ${sale.state.replace('_', ' ')} sale cannot be ${op}`,
      { state: sale.state },
      ErrorCodes.PAYMENT_STATE,
    );
  return undefined;
}

/** Captured card sales and closed wallet windows are refunded instead (docs/payments.md, "Capture, cancel, refund"). */
export function cancelCheck(
  sale: JournalRow,
  now: number,
  open: OpenOperations = { refund: 0, cancel: 0, capture: 0 },
): Check {
  const unusable = saleUsable(sale, 'cancelled');
  if (unusable !== undefined) return unusable;
  if (isCard(sale) && (sale.capturedAmount > 0 || isCapturedStatus(sale.platformStatus))) {
    return refuse(
      'CAPTURED_REFUND_INSTEAD',
      'the sale is captured and can no longer be cancelled: refund it instead',
      { suggest: 'refund' },
      ErrorCodes.PAYMENT_STATE,
    );
  }
  const deadline = cancelDeadline(sale);
  if (deadline !== undefined && now >= deadline) {
    const rule =
      sale.method === 'walletA' ? 'until 00:15 UTC+8 on the day after the sale' : 'for 24 hours after the sale';
    // Stryker disable next-line StringLiteral: only walletA and walletB have a deadline, so the method is always there
    const method = sale.method ?? 'wallet';
    return refuse(
      'CANCEL_WINDOW_ENDED',
      `the ${method} cancel window (${rule}) ended at ${new Date(deadline).toISOString()}: a refund is offered instead`,
      {
        suggest: 'refund',
        deadline: new Date(deadline).toISOString(),
      },
    );
  }
  const left = sale.amount - sale.cancelledAmount - sale.refundedAmount - open.cancel - open.refund;
  if (left <= 0) return refuse('NOTHING_LEFT_TO_CANCEL', 'nothing is left to cancel on this sale');
  return { ok: true, maxAmount: left };
}

/** walletB 180 days; an uncaptured card sale is cancelled, not refunded (docs/payments.md, "Capture, cancel, refund"). */
export function refundCheck(
  sale: JournalRow,
  now: number,
  open: OpenOperations = { refund: 0, cancel: 0, capture: 0 },
): Check {
  const unusable = saleUsable(sale, 'refunded');
  if (unusable !== undefined) return unusable;
  let charged: number;
  if (isCard(sale)) {
    if (sale.capturedAmount <= 0)
      return refuse(
        'NOT_CAPTURED_CANCEL_INSTEAD',
        'the sale is authorized but not captured: cancel it instead (nothing was charged yet)',
        { suggest: 'cancel' },
        ErrorCodes.PAYMENT_STATE,
      );
    charged = sale.capturedAmount;
  } else {
    charged = sale.amount - sale.cancelledAmount;
  }
  if (sale.method === 'walletB') {
    const last = walletBRefundLastInstant(saleTime(sale));
    if (now > last)
      return refuse(
        'REFUND_WINDOW_ENDED',
        `the walletB refund window (180 days after the sale) ended at ${new Date(last).toISOString()}`,
        { deadline: new Date(last).toISOString() },
      );
  }
  const left = charged - sale.refundedAmount - open.refund;
  if (left <= 0) return refuse('NOTHING_LEFT_TO_REFUND', 'the sale is fully refunded');
  return { ok: true, maxAmount: left };
}

/** Only a card authorization (capture deferred) is captured, at most what is left of it (docs/payments.md, "Capture, cancel, refund"). */
export function captureCheck(sale: JournalRow, open: OpenOperations = { refund: 0, cancel: 0, capture: 0 }): Check {
  const unusable = saleUsable(sale, 'captured');
  if (unusable !== undefined) return unusable;
  if (!isCard(sale)) return refuse('NOT_A_CARD_SALE', 'only card sales are captured', {}, ErrorCodes.PAYMENT_STATE);
  if (sale.capturedAmount > 0 || isCapturedStatus(sale.platformStatus))
    return refuse('ALREADY_CAPTURED', 'the sale is captured already', {}, ErrorCodes.PAYMENT_STATE);
  if (open.capture > 0)
    return refuse('CAPTURE_UNDER_WAY', 'a capture of this sale is already under way', {}, ErrorCodes.PAYMENT_STATE);
  const left = sale.amount - sale.cancelledAmount - open.cancel;
  if (left <= 0) return refuse('NOTHING_LEFT_TO_CAPTURE', 'nothing is left to capture on this sale');
  return { ok: true, maxAmount: left };
}

/** Throws the refusal, or checks `amount` against the maximum and returns the amount to use. */
export function requireAmount(
  check: Check,
  amount: number | undefined,
  op: 'cancel' | 'refund' | 'capture',
  currency: string,
): number {
  // The reason code travels with the error: a refused POST says why as the allowed-operations answer does.
  if (!check.ok)
    throw ruleError(
      check.refusal.message,
      { ...check.refusal.details, reasonCode: check.refusal.reasonCode },
      check.refusal.code,
    );
  const use = amount ?? check.maxAmount;
  if (use > check.maxAmount) {
    throw ruleError(
      `a ${op} of ${formatAmount(use, currency)} is more than the ${formatAmount(check.maxAmount, currency)} left to ${op}`,
      {
        maxAmount: check.maxAmount,
        currency,
        reasonCode: 'AMOUNT_ABOVE_LEFT',
      },
    );
  }
  return use;
}

/** A MOTO sale is keyed (the reader's keypad), never contactless or chip (docs/payments.md, "Card sale"). */
export function checkMotoEntryMode(entryMode: string): void {
  if (entryMode !== 'Keyed')
    throw ruleError(`a mail/telephone order must be keyed in (entry mode Keyed), not ${entryMode}`, { entryMode });
}

/** The local rules as an allowed-operations view. */
export function localAllowed(sale: JournalRow, now: number, open?: OpenOperations): AllowedOperationsView {
  const view = (c: Check): AllowedOperationView =>
    c.ok
      ? { allowed: true, maxAmount: c.maxAmount }
      : { allowed: false, maxAmount: 0, reason: c.refusal.message, reasonCode: c.refusal.reasonCode };
  return {
    cancel: view(cancelCheck(sale, now, open)),
    refund: view(refundCheck(sale, now, open)),
    capture: view(captureCheck(sale, open)),
    currency: sale.currency,
    fromPlatform: false,
  };
}

interface PlatformOp {
  allowed: boolean;
  maxAmount?: number;
}

function platformOp(v: unknown): PlatformOp | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.allowed !== 'boolean') return undefined;
  return { allowed: o.allowed, ...(typeof o.maxAmount === 'number' ? { maxAmount: o.maxAmount } : {}) };
}

/**
 * Merges the platform's allowed-operations record into the local view: an operation is
 * allowed when both allow it, up to the smaller maximum. The record is one `{allowed,
 * maxAmount, currency}` (docs/platform-contract.md, "Endpoints"); any other field is not
 * read. It is taken as the cancel-or-refund that applies: not allowed, for both; allowed,
 * for cancel when the local rules allow a cancel, else for refund. Capture stays with the
 * local rules (docs/platform-contract.md, "Decisions where the spec is silent", allowed
 * operations record).
 */
export function mergeAllowed(local: AllowedOperationsView, answer: Record<string, unknown>): AllowedOperationsView {
  const perOp: Partial<Record<'cancel' | 'refund' | 'capture', PlatformOp>> = {};
  const bare = platformOp(answer);
  if (bare !== undefined) {
    if (!bare.allowed) {
      perOp.cancel = bare;
      perOp.refund = bare;
    } else if (local.cancel.allowed) perOp.cancel = bare;
    else perOp.refund = bare;
  }
  const merged: AllowedOperationsView = { ...local, fromPlatform: true };
  for (const name of ['cancel', 'refund', 'capture'] as const) {
    const p = perOp[name];
    if (p === undefined) continue;
    const l = local[name];
    if (!p.allowed) {
      // A local refusal keeps its own reason and code (localAllowed); else the platform's refusal is the reason.
      merged[name] = l.allowed
        ? {
            allowed: false,
            maxAmount: 0,
            reason: 'the platform does not allow it for this transaction',
            reasonCode: 'PLATFORM_NOT_ALLOWED',
          }
        : { ...l, maxAmount: 0 };
    } else if (l.allowed) {
      merged[name] = {
        allowed: true,
        maxAmount: p.maxAmount === undefined ? l.maxAmount : Math.min(l.maxAmount, p.maxAmount),
      };
    }
  }
  return merged;
}
