import { AgentError, ErrorCodes } from '../core/errors.js';
import { backoffDelay, sleep } from '../core/index.js';
import { isPlatformError } from '../platform/errors.js';
import { adoptSaleRecord } from './adopt.js';
import type { Engine } from './engine.js';
import type { JournalRow } from './journal/index.js';
import { lookupWithGrace } from './lookup.js';
import { formatAmount } from './money.js';
import { failureKind, isNotFoundError, refusalError } from './outcome.js';
import { classifyStatus, recordEvents, recordServerId, recordStatus, resultMessage, type PlatformRecord } from './records.js';

/**
 * Capture, cancel and refund of a sale (spec "Payment API"; DESIGN.md "Unknown outcome").
 * Each operation is journaled before its request leaves; a failed write is classified:
 * never sent / refused (nothing happened, a clear error) or unknown (looked up: adopted,
 * or found not to have happened; while the lookup fails it is retried in the background).
 */

export type Resolution = 'done' | 'not_happened' | 'unknown';

export const instrumentTypeOf = (sale: JournalRow): string =>
  sale.method === 'walletA' || sale.method === 'walletB' ? sale.method : 'card';

interface NewOp {
  kind: 'refund' | 'cancel' | 'capture';
  amount: number;
  cancelReason?: 'Technical' | 'Functional';
  clientTransactionId?: string;
}

/** The operation's journal row, written before the request leaves (a retry reuses its id and clientDateTime). */
export function journalOperation(e: Engine, sale: JournalRow, op: NewOp): JournalRow {
  const id = op.clientTransactionId ?? e.newId();
  const existing = e.journal.get(id);
  if (existing !== undefined) {
    if (existing.kind !== op.kind || existing.relatedClientTransactionId !== sale.clientTransactionId || existing.amount !== op.amount) {
      throw new AgentError(ErrorCodes.PAYMENT_RULE, `transaction id ${id} is already used for a different operation`, { httpStatus: 409 });
    }
    return e.save(id, { state: 'in_flight', attempts: existing.attempts + 1, message: null });
  }
  const row = e.journal.insert({
    clientTransactionId: id,
    kind: op.kind,
    amount: op.amount,
    currency: sale.currency,
    state: 'in_flight',
    clientDateTime: e.isoNow(),
    relatedClientTransactionId: sale.clientTransactionId,
    ...(sale.merchantId !== undefined ? { merchantId: sale.merchantId } : {}),
    ...(sale.method !== undefined ? { method: sale.method } : {}),
    ...(op.cancelReason !== undefined ? { cancelReason: op.cancelReason } : {}),
    attempts: 1,
  });
  e.publish(row);
  return row;
}

/** Open operations of a sale by kind (sent, outcome not final): their amounts count against what is left. */
export function openOperations(e: Engine, sale: JournalRow): { refund: number; cancel: number; capture: number } {
  const open = { refund: 0, cancel: 0, capture: 0 };
  for (const op of e.journal.related(sale.clientTransactionId)) {
    if (op.state !== 'in_flight' || op.kind === 'sale') continue;
    open[op.kind] += op.amount;
  }
  return open;
}

function opFailed(e: Engine, op: JournalRow, message: string): JournalRow {
  return e.save(op.clientTransactionId, { state: 'failed', message });
}

/** After a write failed: nothing happened (a clear error), or look it up. */
async function afterFailure(e: Engine, op: JournalRow, err: unknown, what: string, resolve: (op: JournalRow) => Promise<Resolution>): Promise<JournalRow> {
  const kind = failureKind(err);
  if (kind === 'not_sent') {
    opFailed(e, op, `the platform could not be reached: nothing was ${what}; try again`);
    throw new AgentError(ErrorCodes.PLATFORM_NETWORK, `the platform could not be reached: nothing was ${what}; try again`, {
      httpStatus: 503,
      cause: err,
      details: { clientTransactionId: op.clientTransactionId },
    });
  }
  if (kind === 'refused') {
    const error = refusalError(err, op.kind, op.clientTransactionId);
    opFailed(e, op, error.message);
    throw error;
  }
  e.log.warn({ clientTransactionId: op.clientTransactionId, kind: op.kind, code: isPlatformError(err) ? err.code : undefined }, 'outcome unknown; looking it up');
  e.save(op.clientTransactionId, { message: 'the platform did not answer in time: checking whether it happened' });
  const first = await resolveSafely(e, op, resolve);
  const after = e.journal.require(op.clientTransactionId);
  if (first === 'unknown') {
    e.background(`resolve ${op.kind}`, () => resolveUntilKnown(e, after, resolve));
    return after;
  }
  if (first === 'not_happened') {
    throw new AgentError(ErrorCodes.PLATFORM_TIMEOUT, `the platform did not answer and has no record of the ${op.kind}: nothing was ${what}; try again`, {
      httpStatus: 504,
      cause: err,
      details: { clientTransactionId: op.clientTransactionId },
    });
  }
  return after;
}

async function resolveSafely(e: Engine, op: JournalRow, resolve: (op: JournalRow) => Promise<Resolution>): Promise<Resolution> {
  try {
    return await resolve(op);
  } catch (err) {
    e.log.warn({ clientTransactionId: op.clientTransactionId, code: isPlatformError(err) ? err.code : undefined }, 'lookup failed; retrying later');
    return 'unknown';
  }
}

/** Retries a lookup with backoff until the platform answers (DESIGN.md invariant 3). */
export async function resolveUntilKnown(e: Engine, op: JournalRow, resolve: (op: JournalRow) => Promise<Resolution>): Promise<Resolution> {
  for (let attempt = 0; ; attempt++) {
    const current = e.journal.require(op.clientTransactionId);
    if (current.state !== 'in_flight') return 'done';
    const result = await resolveSafely(e, current, resolve);
    if (result !== 'unknown') return result;
    await sleep(backoffDelay(attempt, { baseMs: e.retryBaseMs, capMs: e.config.payments.reversalRetryCapMs, random: e.random }), e.stopSignal);
  }
}

// ---------------------------------------------------------------- refund

export interface RefundOptions {
  approvalCode?: string;
  clientTransactionId?: string;
}

export async function sendRefund(e: Engine, sale: JournalRow, amount: number, opts: RefundOptions = {}): Promise<JournalRow> {
  const op = journalOperation(e, sale, { kind: 'refund', amount, ...(opts.clientTransactionId !== undefined ? { clientTransactionId: opts.clientTransactionId } : {}) });
  let record: PlatformRecord;
  try {
    record = await e.platform.refund(
      sale.clientTransactionId,
      {
        clientDateTime: op.clientDateTime,
        channel: e.channel,
        clientNewTransactionId: op.clientTransactionId,
        refundAmount: { amount, currency: sale.currency },
        instrument: { instrumentType: instrumentTypeOf(sale) },
        ...(opts.approvalCode !== undefined ? { approvalCode: opts.approvalCode } : {}),
      },
      e.callOptions(sale),
    );
  } catch (err) {
    return afterFailure(e, op, err, 'refunded', (o) => resolveRefund(e, o));
  }
  return finishRefund(e, op, record);
}

/** Applies a refund record: the refund row and the sale's refunded amount, in one transaction, once. */
export function finishRefund(e: Engine, op: JournalRow, record: PlatformRecord): JournalRow {
  const status = recordStatus(record);
  const cls = classifyStatus(status);
  const ok = cls === 'charged' || cls === 'pending';
  const saleId = op.relatedClientTransactionId as string;
  const updated = e.journal.transaction(() => {
    const current = e.journal.require(op.clientTransactionId);
    if (current.state === 'approved') return current;
    const row = e.journal.update(op.clientTransactionId, {
      state: ok ? 'approved' : cls === 'refused' ? 'declined' : 'failed',
      platformStatus: status ?? null,
      serverTransactionId: recordServerId(record) ?? null,
      events: recordEvents(record),
      message: ok ? `refunded ${formatAmount(op.amount, op.currency)}` : `refund not done: ${resultMessage(record) ?? status ?? 'refused'}`,
    });
    if (ok) {
      const sale = e.journal.require(saleId);
      e.journal.update(saleId, { refundedAmount: sale.refundedAmount + op.amount });
    }
    return row;
  });
  e.publish(updated);
  e.publish(e.journal.require(saleId));
  return updated;
}

/** Spec: the status call takes the refund's own client id. */
export async function resolveRefund(e: Engine, op: JournalRow): Promise<Resolution> {
  const found = await lookupWithGrace(e, op.clientTransactionId, op);
  if (found.kind === 'failed') throw found.error;
  if (found.kind === 'found') {
    finishRefund(e, op, found.record);
    return 'done';
  }
  opFailed(e, op, 'the platform has no record of this refund: nothing was refunded');
  return 'not_happened';
}

// ---------------------------------------------------------------- cancel

export interface CancelOptions {
  reason: 'Technical' | 'Functional';
  approvalCode?: string;
}

export async function sendCancel(e: Engine, sale: JournalRow, amount: number, opts: CancelOptions): Promise<JournalRow> {
  const op = journalOperation(e, sale, { kind: 'cancel', amount, cancelReason: opts.reason });
  let record: PlatformRecord;
  try {
    record = await e.platform.cancel(
      sale.clientTransactionId,
      {
        clientDateTime: op.clientDateTime,
        channel: e.channel,
        cancelReason: opts.reason,
        cancelAmount: { amount, currency: sale.currency },
        instrument: { instrumentType: instrumentTypeOf(sale) },
        clientNewTransactionId: op.clientTransactionId,
        ...(opts.approvalCode !== undefined ? { approvalCode: opts.approvalCode } : {}),
      },
      e.callOptions(sale),
    );
  } catch (err) {
    return afterFailure(e, op, err, 'cancelled', (o) => resolveCancel(e, o));
  }
  return finishCancel(e, op, record);
}

/** Applies a cancel: the cancel row and the sale's cancelled amount (and state when nothing is left), once. */
export function finishCancel(e: Engine, op: JournalRow, record: PlatformRecord | undefined): JournalRow {
  const saleId = op.relatedClientTransactionId as string;
  const updated = e.journal.transaction(() => {
    const current = e.journal.require(op.clientTransactionId);
    if (current.state === 'approved') return current;
    const row = e.journal.update(op.clientTransactionId, {
      state: 'approved',
      ...(record !== undefined
        ? { platformStatus: recordStatus(record) ?? null, serverTransactionId: recordServerId(record) ?? null, events: recordEvents(record) }
        : {}),
      message: `${op.cancelReason === 'Technical' ? 'reversed' : 'cancelled'} ${formatAmount(op.amount, op.currency)}`,
    });
    const sale = e.journal.require(saleId);
    const cancelled = sale.cancelledAmount + op.amount;
    const nothingLeft = cancelled + sale.refundedAmount >= sale.amount;
    e.journal.update(saleId, {
      cancelledAmount: cancelled,
      ...(nothingLeft
        ? {
            state: op.cancelReason === 'Technical' ? 'reversed' : 'cancelled',
            platformStatus: 'cancelled',
            message: op.cancelReason === 'Technical' ? 'reversed: nothing is charged' : 'cancelled: nothing is charged',
          }
        : {}),
    });
    return row;
  });
  e.publish(updated);
  const sale = e.journal.require(saleId);
  e.publish(sale);
  e.settleIfFinal(sale);
  return updated;
}

/**
 * A cancel carries its own client id (so a retry is recognised); a platform that does not
 * keep it is asked about the sale instead: cancelled in full, or what it still allows to cancel.
 */
export async function resolveCancel(e: Engine, op: JournalRow): Promise<Resolution> {
  const saleId = op.relatedClientTransactionId as string;
  const own = await lookupWithGrace(e, op.clientTransactionId, op);
  if (own.kind === 'failed') throw own.error;
  if (own.kind === 'found') {
    finishCancel(e, op, own.record);
    return 'done';
  }
  const sale = e.journal.require(saleId);
  let record: PlatformRecord;
  try {
    record = await e.platform.status(saleId, e.callOptions(sale));
  } catch (err) {
    if (!isNotFoundError(err)) throw err;
    opFailed(e, op, 'the platform has no record of the sale: nothing was cancelled');
    return 'not_happened';
  }
  if (classifyStatus(recordStatus(record)) === 'cancelled') {
    finishCancel(e, op, undefined);
    return 'done';
  }
  const leftBefore = sale.amount - sale.cancelledAmount - sale.refundedAmount;
  const answer = (await e.platform.allowedOperations(saleId, e.callOptions(sale))) as Record<string, unknown>;
  const ops = answer.operations as Record<string, { maxAmount?: unknown }> | undefined;
  const platformLeft = typeof ops?.cancel?.maxAmount === 'number' ? ops.cancel.maxAmount : answer.operation === 'cancel' && typeof answer.maxAmount === 'number' ? answer.maxAmount : undefined;
  if (platformLeft === undefined) return 'unknown';
  if (platformLeft <= leftBefore - op.amount) {
    finishCancel(e, op, undefined);
    return 'done';
  }
  if (platformLeft >= leftBefore) {
    opFailed(e, op, 'the platform did not record the cancel: nothing was cancelled');
    return 'not_happened';
  }
  return 'unknown';
}

// ---------------------------------------------------------------- capture

export async function sendCapture(e: Engine, sale: JournalRow, amount: number): Promise<JournalRow> {
  const op = journalOperation(e, sale, { kind: 'capture', amount });
  let record: PlatformRecord;
  try {
    record = await e.platform.capture(
      sale.clientTransactionId,
      { clientDateTime: op.clientDateTime, channel: e.channel, captureAmount: { amount, currency: sale.currency } },
      e.callOptions(sale),
    );
  } catch (err) {
    return afterFailure(e, op, err, 'captured', (o) => resolveCapture(e, o));
  }
  return finishCapture(e, op, record);
}

/** The capture answer is the sale's record (status Captured): adopted on the sale, the capture row done. */
export function finishCapture(e: Engine, op: JournalRow, record: PlatformRecord): JournalRow {
  const sale = e.journal.require(op.relatedClientTransactionId as string);
  const adopted = adoptSaleRecord(e, sale, record);
  const captured = /^captured$/i.test(recordStatus(record) ?? '');
  return e.save(op.clientTransactionId, {
    state: captured ? 'approved' : 'failed',
    platformStatus: recordStatus(record) ?? null,
    message: captured ? `captured ${formatAmount(adopted.row.capturedAmount || op.amount, op.currency)}` : `not captured: the platform reports ${recordStatus(record) ?? 'nothing'}`,
  });
}

export async function resolveCapture(e: Engine, op: JournalRow): Promise<Resolution> {
  const saleId = op.relatedClientTransactionId as string;
  const captured = (r: PlatformRecord): boolean => /^captured$/i.test(recordStatus(r) ?? '');
  const found = await lookupWithGrace(e, saleId, op, captured);
  if (found.kind === 'failed') throw found.error;
  if (found.kind === 'found') {
    finishCapture(e, op, found.record);
    return 'done';
  }
  if (found.record !== undefined) adoptSaleRecord(e, e.journal.require(saleId), found.record);
  opFailed(e, op, 'the platform did not record the capture: nothing was captured');
  return 'not_happened';
}

// ---------------------------------------------------------------- refund by web

/**
 * Cancel or refund by web (spec "Payment API"; DESIGN.md: body {clientDateTime,
 * clientNewTransactionId, amount}; the platform picks cancel or refund and answers that
 * record). Journaled as a refund row with its own id; a Cancel answer counts as cancelled.
 */
export async function sendRefundByWeb(e: Engine, sale: JournalRow, amount: number): Promise<JournalRow> {
  const op = journalOperation(e, sale, { kind: 'refund', amount });
  let record: PlatformRecord;
  try {
    record = await e.platform.refundByWeb(
      sale.clientTransactionId,
      { clientDateTime: op.clientDateTime, clientNewTransactionId: op.clientTransactionId, amount: { amount, currency: sale.currency } },
      e.callOptions(sale),
    );
  } catch (err) {
    return afterFailure(e, op, err, 'cancelled or refunded', (o) => resolveByWeb(e, o));
  }
  return finishByWeb(e, op, record);
}

function finishByWeb(e: Engine, op: JournalRow, record: PlatformRecord): JournalRow {
  if (record.transactionType === 'Cancel') return finishCancel(e, op, record);
  return finishRefund(e, op, record);
}

async function resolveByWeb(e: Engine, op: JournalRow): Promise<Resolution> {
  const found = await lookupWithGrace(e, op.clientTransactionId, op);
  if (found.kind === 'failed') throw found.error;
  if (found.kind === 'found') {
    finishByWeb(e, op, found.record);
    return 'done';
  }
  opFailed(e, op, 'the platform has no record of this operation: nothing was cancelled or refunded');
  return 'not_happened';
}
