import { AgentError, ErrorCodes, isAgentError } from '../core/index.js';
import { backoffDelay } from '../core/index.js';
import { isPlatformError } from '../platform/index.js';
import { adoptSaleRecord } from './adopt.js';
import { ourByWebIn } from './by-web-outcome.js';
import { cancelBody, instrumentTypeOf, otherDoneCancels, ourCancelIn } from './cancel-outcome.js';
import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { lookupWithGrace } from './lookup.js';
import { recordOrKeep } from './outcome-recorder.js';
import { formatAmount } from './money.js';
import { failureKind, isNotFoundError, refusalError } from './outcome.js';
import type { JournalPatch } from './journal/index.js';
import {
  capturedOf,
  classifyStatus,
  isCancelRecord,
  isCapturedStatus,
  newEvents,
  publicEvent,
  recordEvents,
  recordServerId,
  recordStatus,
  resultMessage,
  type PlatformRecord,
} from './records.js';
import { cancelCheck, refundCheck } from './rules.js';
import { salePatchFromRecord } from './sale-record-patch.js';
import { platformIdOf } from './qr-call.js';
import { operationVerdict, type OperationOutcome, type OperationVerdict } from './operation-result.js';

/**
 * Capture, cancel and refund of a sale (docs/platform-contract.md, "Endpoints";
 * docs/payments.md, "Capture, cancel, refund" and "Unknown outcome: resolution and
 * reversal").
 * Each operation is journaled before its request leaves; a failed write is classified:
 * never sent / refused (nothing happened, a clear error) or unknown (looked up: adopted,
 * or found not to have happened; while the lookup fails it is retried in the background).
 */

export type Resolution = 'done' | 'not_happened' | 'unknown';

export { instrumentTypeOf } from './cancel-outcome.js';

interface NewOp {
  kind: 'refund' | 'cancel' | 'capture';
  amount: number;
  cancelReason?: 'Technical' | 'Functional';
  clientTransactionId?: string;
  /** Sent through the platform's refundbyweb (JournalRow `via`). */
  via?: 'web';
}

/** The operation's journal row, written before the request leaves (a retry reuses its id and clientDateTime). */
export function journalOperation(ctx: PaymentContext, sale: JournalRow, op: NewOp): JournalRow {
  // The sale's own outcome is on disk before anything acting on it leaves (Journal.requireWritten):
  // JOURNAL_UNWRITABLE otherwise, as for the operation's own row.
  ctx.journal.requireWritten(sale.clientTransactionId);
  const id = op.clientTransactionId ?? ctx.newId();
  const existing = ctx.journal.get(id);
  if (existing !== undefined) {
    if (
      existing.kind !== op.kind ||
      existing.relatedClientTransactionId !== sale.clientTransactionId ||
      existing.amount !== op.amount
    ) {
      throw new AgentError(
        ErrorCodes.PAYMENT_ID_CONFLICT,
        `transaction id ${id} is already used for a different operation`,
      );
    }
    return ctx.save(id, { state: 'in_flight', attempts: existing.attempts + 1, message: null });
  }
  const row = ctx.insert({
    clientTransactionId: id,
    kind: op.kind,
    amount: op.amount,
    currency: sale.currency,
    state: 'in_flight',
    clientDateTime: ctx.isoNow(),
    relatedClientTransactionId: sale.clientTransactionId,
    ...(sale.merchantId !== undefined ? { merchantId: sale.merchantId } : {}),
    ...(sale.method !== undefined ? { method: sale.method } : {}),
    ...(op.cancelReason !== undefined ? { cancelReason: op.cancelReason } : {}),
    ...(op.via !== undefined ? { via: op.via } : {}),
    attempts: 1,
  });
  return row;
}

/**
 * Open operations of a sale by kind (sent with the outcome unknown, or answered pending and
 * followed until final): their amounts count against what is left.
 */
export function openOperations(
  ctx: PaymentContext,
  sale: JournalRow,
): { refund: number; cancel: number; capture: number } {
  const open = { refund: 0, cancel: 0, capture: 0 };
  for (const op of ctx.journal.related(sale.clientTransactionId)) {
    if ((op.state !== 'in_flight' && op.state !== 'pending') || op.kind === 'sale') continue;
    open[op.kind] += op.amount;
  }
  return open;
}

function opFailed(ctx: PaymentContext, op: JournalRow, message: string): JournalRow {
  return ctx.save(op.clientTransactionId, { state: 'failed', message });
}

/** After a write failed: nothing happened (a clear error), or look it up. */
async function afterFailure(
  ctx: PaymentContext,
  op: JournalRow,
  err: unknown,
  what: string,
  resolve: (op: JournalRow) => Promise<Resolution>,
): Promise<JournalRow> {
  const kind = failureKind(err);
  if (kind === 'not_sent') {
    opFailed(ctx, op, `the platform could not be reached: nothing was ${what}; try again`);
    throw new AgentError(
      ErrorCodes.PAYMENT_NOT_SENT,
      `the platform could not be reached: nothing was ${what}; try again`,
      {
        cause: err,
        details: { clientTransactionId: op.clientTransactionId },
      },
    );
  }
  if (kind === 'refused') {
    const error = refusalError(err, op.kind, op.clientTransactionId);
    opFailed(ctx, op, error.message);
    throw error;
  }
  ctx.log.warn(
    { clientTransactionId: op.clientTransactionId, kind: op.kind, code: isPlatformError(err) ? err.code : undefined },
    'outcome unknown; looking it up',
  );
  ctx.save(op.clientTransactionId, { message: 'the platform did not answer in time: checking whether it happened' });
  const first = await resolveSafely(ctx, op, resolve);
  const after = ctx.journal.require(op.clientTransactionId);
  if (first === 'unknown') {
    ctx.background(`resolve ${op.kind}`, () => resolveUntilKnown(ctx, after, resolve));
    return after;
  }
  if (first === 'not_happened') {
    throw new AgentError(
      ErrorCodes.PAYMENT_NOT_DONE,
      `the platform did not answer and has no record of the ${op.kind}: nothing was ${what}; try again`,
      {
        cause: err,
        details: { clientTransactionId: op.clientTransactionId },
      },
    );
  }
  return after;
}

async function resolveSafely(
  ctx: PaymentContext,
  op: JournalRow,
  resolve: (op: JournalRow) => Promise<Resolution>,
): Promise<Resolution> {
  try {
    return await resolve(op);
  } catch (err) {
    ctx.log.warn(
      { clientTransactionId: op.clientTransactionId, code: isPlatformError(err) ? err.code : undefined },
      'lookup failed; retrying later',
    );
    return 'unknown';
  }
}

/** Retries a lookup with backoff until the platform answers: every unknown outcome is resolved (docs/architecture.md, "Invariants" 3). */
export async function resolveUntilKnown(
  ctx: PaymentContext,
  op: JournalRow,
  resolve: (op: JournalRow) => Promise<Resolution>,
): Promise<Resolution> {
  for (let attempt = 0; ; attempt++) {
    const current = ctx.journal.require(op.clientTransactionId);
    if (current.state !== 'in_flight') return 'done';
    const result = await resolveSafely(ctx, current, resolve);
    if (result !== 'unknown') return result;
    await ctx.clock.sleep(
      backoffDelay(attempt, {
        baseMs: ctx.retryBaseMs,
        capMs: ctx.config.payments.reversalRetryCapMs,
        random: ctx.random,
      }),
      ctx.stopSignal,
    );
  }
}

/**
 * One capture, cancel or refund (by web), the same way for each: its journal row is
 * written before the request leaves; the answer is applied by `finish`; a failed request
 * is classified (never sent or refused: nothing happened, a clear error; unknown: looked
 * up with `resolve`, in the background while the lookup fails). docs/architecture.md,
 * "Flows" and "Invariants".
 */
interface Operation {
  /** The operation's journal row. */
  row: NewOp;
  /** What the operation does to the money, for the messages ("refunded"). */
  what: string;
  /** The platform request for the operation's row. */
  send(op: JournalRow): Promise<PlatformRecord>;
  finish(ctx: PaymentContext, op: JournalRow, record: PlatformRecord): JournalRow;
  resolve(ctx: PaymentContext, op: JournalRow): Promise<Resolution>;
}

async function runOperation(ctx: PaymentContext, sale: JournalRow, operation: Operation): Promise<JournalRow> {
  const op = journalOperation(ctx, sale, operation.row);
  let record: PlatformRecord;
  try {
    record = await operation.send(op);
  } catch (err) {
    return afterFailure(ctx, op, err, operation.what, (o) => operation.resolve(ctx, o));
  }
  // The request left and was answered: the answer reaches the journal now, or is kept until it can.
  return recordOrKeep(ctx, op, () => operation.finish(ctx, op, record));
}

/**
 * The lookup of an operation that carries its own client id: found, it is finished from
 * the record; not found within the grace, it did not happen.
 */
async function resolveByOwnId(
  ctx: PaymentContext,
  op: JournalRow,
  finish: (ctx: PaymentContext, op: JournalRow, record: PlatformRecord) => JournalRow,
  notFoundMessage: string,
): Promise<Resolution> {
  const found = await lookupWithGrace(ctx, op.clientTransactionId, op);
  if (found.kind === 'failed') throw found.error;
  if (found.kind === 'found') {
    recordOrKeep(ctx, op, () => finish(ctx, op, found.record));
    return 'done';
  }
  opFailed(ctx, op, notFoundMessage);
  return 'not_happened';
}

/** The lookup that settles an operation row left in flight (by a crash or a lost answer). */
export function resolverFor(ctx: PaymentContext, op: JournalRow): (o: JournalRow) => Promise<Resolution> {
  if (op.via === 'web') return (o) => resolveByWeb(ctx, o);
  if (op.kind === 'refund') return (o) => resolveRefund(ctx, o);
  if (op.kind === 'cancel') return (o) => resolveCancel(ctx, o);
  return (o) => resolveCapture(ctx, o);
}

// ---------------------------------------------------------------- refund

export interface RefundOptions {
  approvalCode?: string;
  clientTransactionId?: string;
}

export function sendRefund(
  ctx: PaymentContext,
  sale: JournalRow,
  amount: number,
  opts: RefundOptions = {},
): Promise<JournalRow> {
  return runOperation(ctx, sale, {
    row: {
      kind: 'refund',
      amount,
      ...(opts.clientTransactionId !== undefined ? { clientTransactionId: opts.clientTransactionId } : {}),
    },
    what: 'refunded',
    send: (op) =>
      ctx.platform.refund(
        platformIdOf(sale),
        {
          clientDateTime: op.clientDateTime,
          channel: ctx.channel,
          clientNewTransactionId: op.clientTransactionId,
          refundAmount: { amount, currency: sale.currency },
          instrument: { instrumentType: instrumentTypeOf(sale) },
          ...(opts.approvalCode !== undefined ? { approvalCode: opts.approvalCode } : {}),
        },
        ctx.callOptions(sale),
      ),
    finish: finishRefund,
    resolve: resolveRefund,
  });
}

export type { OperationOutcome } from './operation-result.js';

/** An operation record applied to its row (for the event relay: the events it had not seen, and whether it is final). */
export interface AppliedOperation {
  row: JournalRow;
  newEvents: Array<Record<string, unknown>>;
  final: boolean;
}

const STATE_OF: Record<Exclude<OperationOutcome, 'done'>, 'pending' | 'declined' | 'failed'> = {
  pending: 'pending',
  declined: 'declined',
  failed: 'failed',
};

/** Fields of an operation row from its own record: status, server id, the events (and those not seen before). */
function operationRecordPatch(
  current: JournalRow,
  record: PlatformRecord,
): { patch: JournalPatch; fresh: Array<Record<string, unknown>> } {
  const fresh = newEvents(current.events, recordEvents(record));
  return {
    patch: {
      platformStatus: recordStatus(record) ?? null,
      ...(recordServerId(record) !== undefined ? { serverTransactionId: recordServerId(record) } : {}),
      ...(fresh.length > 0 ? { events: [...current.events, ...fresh] } : {}),
    },
    fresh,
  };
}

/** After an operation row changed: the relay follows a row that became pending. */
function followIfPending(ctx: PaymentContext, before: JournalRow, after: JournalRow): void {
  if (after.state === 'pending' && before.state !== 'pending') ctx.notifyTracking(after);
}

const UNDONE: Record<'refund' | 'cancel' | 'reversal', { verb: string; again: string }> = {
  refund: { verb: 'refunded', again: 'refunded again' },
  cancel: { verb: 'cancelled', again: 'cancelled again' },
  reversal: { verb: 'reversed', again: 'reversed again' },
};

/**
 * The row's message while the operation is not final, or once it ended without happening:
 * the clerk is told what the platform reported and that the amount is open again (its
 * sale's refunded or cancelled amount never moved: docs/payments.md, "Capture, cancel,
 * refund").
 */
function notFinalOrNotDone(
  what: 'refund' | 'cancel' | 'reversal',
  verdict: OperationVerdict,
  amount: string,
  status: string | undefined,
  record: PlatformRecord | undefined,
): string {
  if (verdict.outcome === 'pending') {
    if (verdict.result !== undefined) {
      return `${what} of ${amount} pending at the platform (result "${verdict.result}" is not one the terminal knows as final): followed; check it with the platform before repeating it`;
    }
    return `${what} of ${amount} pending at the platform (status "${status ?? ''}", no result yet): followed until it is final`;
  }
  const why =
    verdict.resultMessage ?? (record !== undefined ? resultMessage(record) : undefined) ?? verdict.result ?? status;
  const reported =
    verdict.outcome === 'declined' ? `the platform refused the ${what}` : `the platform reports the ${what} failed`;
  return `${reported}${why !== undefined ? ` (${why})` : ''}: nothing was ${UNDONE[what].verb}; ${amount} can be ${UNDONE[what].again}`;
}

/** Applies a refund record: the refund row and, once done, the sale's refunded amount, in one transaction, once. */
export function finishRefund(ctx: PaymentContext, op: JournalRow, record: PlatformRecord): JournalRow {
  return applyRefund(ctx, op, record, false).row;
}

function applyRefund(ctx: PaymentContext, op: JournalRow, record: PlatformRecord, quiet: boolean): AppliedOperation {
  const status = recordStatus(record);
  const verdict = operationVerdict('refund', record);
  const outcome = verdict.outcome;
  const saleId = op.relatedClientTransactionId as string;
  let before = op;
  let fresh: Array<Record<string, unknown>> = [];
  // The refund's row and its sale in one transaction; both announced after it (the row unless the relay does).
  const updated = ctx.rows.write(() => {
    const current = ctx.journal.require(op.clientTransactionId);
    before = current;
    if (current.state === 'approved') {
      ctx.rows.announce(op.clientTransactionId, { quiet });
      ctx.rows.announce(saleId);
      return current;
    }
    const fromRecord = operationRecordPatch(current, record);
    fresh = fromRecord.fresh;
    const amount = formatAmount(op.amount, op.currency);
    const row = ctx.save(
      op.clientTransactionId,
      {
        ...fromRecord.patch,
        state: outcome === 'done' ? 'approved' : STATE_OF[outcome],
        message:
          outcome === 'done' ? `refunded ${amount}` : notFinalOrNotDone('refund', verdict, amount, status, record),
      },
      { quiet },
    );
    const sale = ctx.journal.require(saleId);
    if (outcome === 'done') ctx.save(saleId, { refundedAmount: sale.refundedAmount + op.amount });
    else ctx.rows.announce(saleId);
    return row;
  });
  followIfPending(ctx, before, updated);
  return { row: updated, newEvents: fresh, final: updated.state !== 'pending' };
}

/** The status call takes the refund's own client id (docs/payments.md, "Unknown outcome: resolution and reversal"). */
export function resolveRefund(ctx: PaymentContext, op: JournalRow): Promise<Resolution> {
  return resolveByOwnId(ctx, op, finishRefund, 'the platform has no record of this refund: nothing was refunded');
}

// ---------------------------------------------------------------- cancel

export interface CancelOptions {
  reason: 'Technical' | 'Functional';
  approvalCode?: string;
}

export function sendCancel(
  ctx: PaymentContext,
  sale: JournalRow,
  amount: number,
  opts: CancelOptions,
): Promise<JournalRow> {
  return runOperation(ctx, sale, {
    row: { kind: 'cancel', amount, cancelReason: opts.reason },
    what: 'cancelled',
    // A terminal QR call sale by the server id its answer gave (qr-call.ts).
    send: (op) =>
      ctx.platform.cancel(platformIdOf(sale), cancelBody(ctx, sale, op, opts.approvalCode), ctx.callOptions(sale)),
    finish: finishCancel,
    resolve: resolveCancel,
  });
}

/**
 * Applies a cancel: the cancel row and, once done, the sale's cancelled amount (and state
 * when nothing is left), once. Without a record the cancel is known done from the sale.
 */
export function finishCancel(ctx: PaymentContext, op: JournalRow, record: PlatformRecord | undefined): JournalRow {
  return applyCancel(ctx, op, record, false).row;
}

function applyCancel(
  ctx: PaymentContext,
  op: JournalRow,
  record: PlatformRecord | undefined,
  quiet: boolean,
): AppliedOperation {
  const saleId = op.relatedClientTransactionId as string;
  const status = record !== undefined ? recordStatus(record) : undefined;
  const verdict: OperationVerdict = record !== undefined ? operationVerdict('cancel', record) : { outcome: 'done' };
  const outcome = verdict.outcome;
  let before = op;
  let fresh: Array<Record<string, unknown>> = [];
  // The cancel's row and its sale in one transaction; both announced after it (the row unless the relay does).
  const updated = ctx.rows.write(() => {
    const current = ctx.journal.require(op.clientTransactionId);
    before = current;
    if (current.state === 'approved') {
      ctx.rows.announce(op.clientTransactionId, { quiet });
      ctx.rows.announce(saleId);
      return current;
    }
    const fromRecord = record !== undefined ? operationRecordPatch(current, record) : { patch: {}, fresh: [] };
    fresh = fromRecord.fresh;
    const amount = formatAmount(op.amount, op.currency);
    if (outcome !== 'done') {
      const notDone = ctx.save(
        op.clientTransactionId,
        {
          ...fromRecord.patch,
          state: STATE_OF[outcome],
          message: notFinalOrNotDone(
            op.cancelReason === 'Technical' ? 'reversal' : 'cancel',
            verdict,
            amount,
            status,
            record,
          ),
        },
        { quiet },
      );
      ctx.rows.announce(saleId);
      return notDone;
    }
    const row = ctx.save(
      op.clientTransactionId,
      {
        ...fromRecord.patch,
        state: 'approved',
        message: `${op.cancelReason === 'Technical' ? 'reversed' : 'cancelled'} ${amount}`,
      },
      { quiet },
    );
    const sale = ctx.journal.require(saleId);
    // The sale's own record may have said `cancelled` first (its refresh or the relay set the
    // cancelled amount from it): never more cancelled than the sale had left.
    const cancelled = Math.min(sale.cancelledAmount + op.amount, sale.amount - sale.refundedAmount);
    const nothingLeft = cancelled + sale.refundedAmount >= sale.amount;
    ctx.save(saleId, {
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
  followIfPending(ctx, before, updated);
  return { row: updated, newEvents: fresh, final: updated.state !== 'pending' };
}

/**
 * A later record of a refund or cancel the platform answered pending (the event relay's
 * status call, a refresh): applied like its first answer. `quiet`: the caller publishes
 * the operation's row itself (the relay).
 */
export function applyOperationRecord(
  ctx: PaymentContext,
  op: JournalRow,
  record: PlatformRecord,
  opts: { quiet?: boolean } = {},
): AppliedOperation {
  const quiet = opts.quiet === true;
  if (op.kind === 'cancel' || isCancelRecord(record)) return applyCancel(ctx, op, record, quiet);
  return applyRefund(ctx, op, record, quiet);
}

/** The id the status call of a pending operation takes: the server id its answer gave (the path takes either id), else its own client id. */
export function statusIdOf(op: JournalRow): string {
  return op.serverTransactionId ?? op.clientTransactionId;
}

/**
 * A cancel whose answer was lost, settled from the platform's own records
 * (docs/platform-contract.md, "Decisions where the spec is silent", recognising a cancel
 * whose answer was lost). The cancel carries no id, so the sale is looked up: its history
 * showing our cancel (or its status `cancelled`) means done, a result refusing it means
 * not done; neither is believed absent until the lookup grace has passed, and our cancel
 * shown without its result yet stays unknown (looked at again until the result comes). Then the
 * allowed-operations record decides as the contract defines it: still allowed up to what
 * was left before = not done, up to that less our amount = done. Anything else leaves the
 * cancel to a person (`needs_attention`), never in flight for ever.
 */
export async function resolveCancel(ctx: PaymentContext, op: JournalRow): Promise<Resolution> {
  const saleId = op.relatedClientTransactionId as string;
  const others = otherDoneCancels(ctx, op);
  // Our cancel settles it once its result is in the history: a request without a result yet
  // is a cancel the platform is still completing (docs/platform-contract.md, "Decisions where
  // the spec is silent", refund or cancel answered pending), so the lookup keeps asking.
  const settled = (r: PlatformRecord): boolean => {
    const ours = ourCancelIn(r, op, others);
    return ours === 'accepted' || ours === 'refused' || classifyStatus(recordStatus(r)) === 'cancelled';
  };
  const found = await lookupWithGrace(ctx, platformIdOf(ctx.journal.require(saleId)), op, settled);
  if (found.kind === 'failed') throw found.error;
  if (found.kind !== 'found' && found.record !== undefined && ourCancelIn(found.record, op, others) === 'unknown') {
    // The platform holds our cancel and its result is still to come (a result may come long
    // after the answer): not final, so looked at again, with backoff and across restarts,
    // until the result is there; the amount stays held meanwhile.
    const checking = 'the platform shows the cancel but not its result yet: being checked; do not cancel again';
    // Said once, not on every look.
    if (ctx.journal.require(op.clientTransactionId).message !== checking)
      ctx.save(op.clientTransactionId, { message: checking });
    return 'unknown';
  }
  if (found.kind === 'found') {
    if (ourCancelIn(found.record, op, others) === 'refused') {
      opFailed(ctx, op, `the platform refused the cancel: ${resultMessage(found.record) ?? 'nothing was cancelled'}`);
      return 'not_happened';
    }
    recordOrKeep(ctx, op, () => finishCancel(ctx, op, undefined));
    return 'done';
  }
  if (found.record === undefined) {
    opFailed(ctx, op, 'the platform has no record of the sale: nothing was cancelled');
    return 'not_happened';
  }
  const sale = ctx.journal.require(saleId);
  const leftBefore = sale.amount - sale.cancelledAmount - sale.refundedAmount;
  const answer = await ctx.platform.allowedOperations(platformIdOf(sale), ctx.callOptions(sale));
  if (answer.allowed && typeof answer.maxAmount === 'number') {
    if (answer.maxAmount >= leftBefore) {
      opFailed(ctx, op, 'the platform did not record the cancel: nothing was cancelled');
      return 'not_happened';
    }
    if (answer.maxAmount <= leftBefore - op.amount) {
      recordOrKeep(ctx, op, () => finishCancel(ctx, op, undefined));
      return 'done';
    }
  }
  ctx.save(op.clientTransactionId, {
    state: 'needs_attention',
    message: "the platform's records do not show whether the cancel happened: check the sale before cancelling again",
  });
  return 'done';
}

// ---------------------------------------------------------------- capture

export async function sendCapture(ctx: PaymentContext, sale: JournalRow, amount: number): Promise<JournalRow> {
  try {
    return await runOperation(ctx, sale, {
      row: { kind: 'capture', amount },
      what: 'captured',
      send: (op) =>
        ctx.platform.capture(
          sale.clientTransactionId,
          {
            clientDateTime: op.clientDateTime,
            channel: ctx.channel,
            captureAmount: { amount, currency: sale.currency },
          },
          ctx.callOptions(sale),
        ),
      finish: finishCapture,
      resolve: resolveCapture,
    });
  } catch (err) {
    return capturedAlready(ctx, sale, err);
  }
}

const ALREADY_CAPTURED_MESSAGE = 'not captured by this request: the platform had captured the sale already';

/** The record shows the sale captured: `Captured`, or a capture event that was not refused (the status word alone is not relied on). */
const showsCaptured = (record: PlatformRecord): boolean =>
  isCapturedStatus(recordStatus(record)) || capturedOf(record) !== undefined;

/**
 * A capture the platform refused may be refused because the platform had captured the sale
 * already (the acquirer captured at once, another system captured it, or a capture whose
 * answer was refused went through): the sale's status decides (docs/platform-contract.md,
 * "Decisions where the spec is silent", capture answer). Captured: the sale is recorded
 * captured, so cancel and refund are offered right, and the caller is told it is captured
 * already (PAYMENT_STATE, reasonCode ALREADY_CAPTURED, as when the journal knew). Anything
 * else, or a status that cannot be read: the refusal as it was.
 */
async function capturedAlready(ctx: PaymentContext, sale: JournalRow, err: unknown): Promise<never> {
  if (!isAgentError(err, ErrorCodes.PAYMENT_RULE) || !isPlatformError(err.cause) || err.cause.category !== 'rejected')
    throw err;
  let record: PlatformRecord;
  try {
    record = await ctx.platform.status(sale.clientTransactionId, ctx.callOptions(sale));
  } catch (lookupErr) {
    ctx.log.info(
      { clientTransactionId: sale.clientTransactionId, code: isPlatformError(lookupErr) ? lookupErr.code : undefined },
      'refused capture: the sale could not be looked up',
    );
    throw err;
  }
  if (!showsCaptured(record)) throw err;
  const adopted = adoptSaleRecord(ctx, ctx.journal.require(sale.clientTransactionId), record).row;
  const opId = typeof err.details?.clientTransactionId === 'string' ? err.details.clientTransactionId : undefined;
  if (opId !== undefined && ctx.journal.get(opId) !== undefined) ctx.save(opId, { message: ALREADY_CAPTURED_MESSAGE });
  ctx.log.info(
    { clientTransactionId: sale.clientTransactionId, capturedAmount: adopted.capturedAmount },
    'capture refused: the platform had captured the sale already',
  );
  throw new AgentError(
    ErrorCodes.PAYMENT_STATE,
    'the sale is captured already (the platform captured it before this request): refund it to give money back',
    {
      cause: err,
      details: {
        reasonCode: 'ALREADY_CAPTURED',
        suggest: 'refund',
        ...(opId !== undefined ? { clientTransactionId: opId } : {}),
      },
    },
  );
}

/** The refusal sendCapture gives when the platform had captured the sale already. */
export function isAlreadyCapturedRefusal(err: unknown): boolean {
  return isAgentError(err, ErrorCodes.PAYMENT_STATE) && err.details?.reasonCode === 'ALREADY_CAPTURED';
}

/**
 * The capture answer is the sale's record. A 2xx answer captured the sale unless it
 * carries an error result: a refused, failed, expired or cancelled status, or a capture
 * event whose result is refused or failed. The status word itself is not relied on
 * (`Captured`, or `Accepted` as an authorization stays: docs/platform-contract.md,
 * "Decisions where the spec is silent", capture body and answer). The amount captured is
 * the capture event's, else the amount asked for.
 */
export function finishCapture(ctx: PaymentContext, op: JournalRow, record: PlatformRecord): JournalRow {
  const saleId = op.relatedClientTransactionId as string;
  const status = recordStatus(record);
  const cls = classifyStatus(status);
  const refused = captureRefusal(record);
  let fresh: Array<Record<string, unknown>> = [];
  // The capture row and its sale in one transaction: both reach the journal or neither
  // (a journal that cannot write: outcome-recorder.ts); the bus is told after the commit.
  return ctx.rows.write(() => {
    const current = ctx.journal.require(saleId);
    let adopted = current;
    if (cls === 'charged' || refused !== undefined) {
      const change = salePatchFromRecord(current, record);
      fresh = change.newEvents;
      if (Object.keys(change.patch).length > 0) adopted = ctx.save(saleId, change.patch);
    } else {
      // A status that does not describe a sale (pending, unknown): the events are kept, the sale's state stays.
      fresh = newEvents(current.events, recordEvents(record));
      if (fresh.length > 0) adopted = ctx.save(saleId, { events: [...current.events, ...fresh] });
    }
    // The sale first, once per platform event it journaled for the first time, then the capture's row.
    ctx.rows.announce(saleId, { platformEvents: fresh.map(publicEvent) });
    if (refused !== undefined) {
      // A refusal whose record shows the sale captured: captured already, and recorded so (adopted above).
      const message = adopted.capturedAmount > 0 ? ALREADY_CAPTURED_MESSAGE : `not captured: ${refused}`;
      return ctx.save(op.clientTransactionId, { state: 'failed', platformStatus: status ?? null, message });
    }
    const captured = capturedOf(record) ?? op.amount;
    if (adopted.capturedAmount < captured) {
      adopted = ctx.save(saleId, {
        capturedAmount: captured,
        message: `approved: ${formatAmount(adopted.amount, adopted.currency)}, captured ${formatAmount(captured, adopted.currency)}`,
      });
    }
    return ctx.save(op.clientTransactionId, {
      state: 'approved',
      platformStatus: status ?? null,
      message: `captured ${formatAmount(adopted.capturedAmount || op.amount, op.currency)}`,
    });
  });
}

/** Why a capture answer says it did not capture, or undefined when it did. */
function captureRefusal(record: PlatformRecord): string | undefined {
  const status = recordStatus(record);
  const cls = classifyStatus(status);
  if (cls === 'refused' || cls === 'failed' || cls === 'expired' || cls === 'cancelled')
    return `the platform reports ${status ?? 'a failure'}`;
  const captureEvents = recordEvents(record).filter(
    (e) => typeof e.eventType === 'string' && /capture/i.test(e.eventType),
  );
  const last = captureEvents.at(-1);
  const result = typeof last?.result === 'string' ? last.result : undefined;
  const resultCls = classifyStatus(result);
  if (resultCls === 'refused' || resultCls === 'failed')
    return resultMessage(record) ?? `the capture result is ${result ?? ''}`;
  return undefined;
}

/**
 * A capture whose answer was lost: the sale's record shows it once the status is
 * `Captured` or a capture event is there (the status word alone is not relied on).
 */
export async function resolveCapture(ctx: PaymentContext, op: JournalRow): Promise<Resolution> {
  const saleId = op.relatedClientTransactionId as string;
  const found = await lookupWithGrace(ctx, saleId, op, showsCaptured);
  if (found.kind === 'failed') throw found.error;
  if (found.kind === 'found') {
    recordOrKeep(ctx, op, () => finishCapture(ctx, op, found.record));
    return 'done';
  }
  if (found.record !== undefined) adoptSaleRecord(ctx, ctx.journal.require(saleId), found.record);
  opFailed(ctx, op, 'the platform did not record the capture: nothing was captured');
  return 'not_happened';
}

// ---------------------------------------------------------------- refund by web

/**
 * Cancel or refund by web (body {clientDateTime, clientNewTransactionId, amount}; the
 * platform picks cancel or refund and answers that record: docs/platform-contract.md,
 * "Endpoints"). Journaled as a refund row with its own id, marked `via: 'web'`; a Cancel
 * answer counts as cancelled. Its amount counts against the sale while the row is open
 * (openOperations), so nothing is given back twice while its outcome is checked.
 */
export function sendRefundByWeb(ctx: PaymentContext, sale: JournalRow, amount: number): Promise<JournalRow> {
  return runOperation(ctx, sale, {
    row: { kind: 'refund', amount, via: 'web' },
    what: 'cancelled or refunded',
    send: (op) =>
      ctx.platform.refundByWeb(
        sale.clientTransactionId,
        {
          clientDateTime: op.clientDateTime,
          clientNewTransactionId: op.clientTransactionId,
          amount: { amount, currency: sale.currency },
        },
        ctx.callOptions(sale),
      ),
    finish: finishByWeb,
    resolve: resolveByWeb,
  });
}

function finishByWeb(ctx: PaymentContext, op: JournalRow, record: PlatformRecord): JournalRow {
  if (isCancelRecord(record)) return finishCancel(ctx, op, record);
  return finishRefund(ctx, op, record);
}

/** What the clerk, the CLI and a register read while a refund by web's outcome is looked for. */
const BY_WEB_CHECKING =
  'outcome being checked at the platform: do not repeat the refund by web (its amount stays held against the sale)';

/**
 * A refund by web whose answer was lost (docs/platform-contract.md, "Decisions where the
 * spec is silent", recognising a refund by web whose answer was lost). The platform never
 * promised to record the `clientNewTransactionId` the agent invented, so a 404 by it is not
 * its word: found by it within the grace, the record settles it; else the sale acted upon,
 * which the platform does know, is asked (settleByWebFromSale). While neither says, the row
 * stays in flight, "being checked: do not repeat", and is asked again in the background and
 * after a restart (resolverFor).
 */
async function resolveByWeb(ctx: PaymentContext, op: JournalRow): Promise<Resolution> {
  let result: Resolution;
  try {
    const own = await lookupWithGrace(ctx, op.clientTransactionId, op);
    if (own.kind === 'failed') throw own.error;
    if (own.kind === 'found') {
      recordOrKeep(ctx, op, () => finishByWeb(ctx, op, own.record));
      return 'done';
    }
    result = await settleByWebFromSale(ctx, op);
  } catch (err) {
    markChecking(ctx, op);
    throw err;
  }
  if (result === 'unknown') markChecking(ctx, op);
  return result;
}

function markChecking(ctx: PaymentContext, op: JournalRow): void {
  const current = ctx.journal.get(op.clientTransactionId);
  // Written once: each write moves updatedAt, from which the lookup grace is counted.
  if (current?.state === 'in_flight' && current.message !== BY_WEB_CHECKING)
    ctx.save(op.clientTransactionId, { message: BY_WEB_CHECKING });
}

/**
 * The sale's record and what it still allows decide (the same evidence as a cancel's:
 * resolveCancel). Its history showing our cancel or refund (our amount and clientDateTime:
 * by-web-outcome.ts) with a result settles it that way; without a result yet it is still
 * under way at the platform (asked again). Absent from the history, the allowed-operations
 * record is read: the amount that was left before (the local rules without this row) still
 * allowed = not done, that less our amount = done (a cancel when the sale is cancelled or
 * could be cancelled, else a refund). Anything else is left to a person (`needs_attention`).
 */
async function settleByWebFromSale(ctx: PaymentContext, op: JournalRow): Promise<Resolution> {
  const saleId = op.relatedClientTransactionId as string;
  const sale = ctx.journal.require(saleId);
  const amount = formatAmount(op.amount, op.currency);
  const platformId = sale.serverTransactionId ?? sale.clientTransactionId;
  let record: PlatformRecord;
  try {
    record = await ctx.platform.status(platformId, ctx.callOptions(sale));
  } catch (err) {
    if (!isNotFoundError(err)) throw err;
    byWebAttention(
      ctx,
      op,
      `the platform does not find the sale ${platformId}: check it at the platform before giving ${amount} back again`,
    );
    return 'done';
  }
  const seen = ourByWebIn(record, op);
  if (seen?.outcome === 'unknown') return 'unknown';
  if (seen?.outcome === 'refused') {
    opFailed(
      ctx,
      op,
      `the platform refused the ${seen.kind} by web: ${resultMessage(record) ?? `nothing was given back`}`,
    );
    return 'not_happened';
  }
  if (seen?.outcome === 'accepted') {
    recordOrKeep(ctx, op, () => byWebDone(ctx, op, seen.kind));
    return 'done';
  }
  const open = openOperations(ctx, sale);
  open.refund = Math.max(0, open.refund - op.amount);
  const now = ctx.clock.wall();
  const cancellable = cancelCheck(sale, now, open);
  const before = cancellable.ok ? cancellable : refundCheck(sale, now, open);
  const answer = await ctx.platform.allowedOperations(platformId, ctx.callOptions(sale));
  // Not allowed: nothing is left to give back (the contract's record has no other reading).
  const max = answer.allowed === false ? 0 : typeof answer.maxAmount === 'number' ? answer.maxAmount : undefined;
  if (before.ok && max !== undefined) {
    if (max >= before.maxAmount) {
      opFailed(
        ctx,
        op,
        `the platform's records of the sale show no cancel or refund of ${amount}: nothing was given back`,
      );
      return 'not_happened';
    }
    if (max <= before.maxAmount - op.amount) {
      const kind = classifyStatus(recordStatus(record)) === 'cancelled' || cancellable.ok ? 'cancel' : 'refund';
      recordOrKeep(ctx, op, () => byWebDone(ctx, op, kind));
      return 'done';
    }
  }
  byWebAttention(
    ctx,
    op,
    `the platform's records do not show whether ${amount} was given back by web: check the sale at the platform before giving anything back again`,
  );
  return 'done';
}

function byWebAttention(ctx: PaymentContext, op: JournalRow, message: string): void {
  ctx.log.warn(
    { clientTransactionId: op.clientTransactionId, relatedClientTransactionId: op.relatedClientTransactionId },
    'refund by web needs attention: its outcome is not known',
  );
  ctx.save(op.clientTransactionId, { state: 'needs_attention', message });
}

/** Our refund by web known done from the sale's records (no record of its own): the row and the sale's amount, once. */
function byWebDone(ctx: PaymentContext, op: JournalRow, kind: 'cancel' | 'refund'): JournalRow {
  if (kind === 'cancel') return finishCancel(ctx, op, undefined);
  const saleId = op.relatedClientTransactionId as string;
  // The row and its sale's refunded amount in one transaction, both announced after it.
  return ctx.rows.write(() => {
    const current = ctx.journal.require(op.clientTransactionId);
    if (current.state === 'approved') {
      ctx.rows.announce(op.clientTransactionId);
      ctx.rows.announce(saleId);
      return current;
    }
    const updated = ctx.save(op.clientTransactionId, {
      state: 'approved',
      message: `refunded ${formatAmount(op.amount, op.currency)} (the platform's records of the sale show it)`,
    });
    const sale = ctx.journal.require(saleId);
    ctx.save(saleId, { refundedAmount: sale.refundedAmount + op.amount });
    return updated;
  });
}
