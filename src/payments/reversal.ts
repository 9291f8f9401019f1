import { reversalDelay } from './reversal-delay.js';
import { backoffDelay, ErrorCodes, describeError, isAgentError } from '../core/index.js';
import { isPlatformError } from '../platform/index.js';
import { adoptSaleRecord } from './adopt.js';
import { LOOKUP_MESSAGE, outcomeBeingChecked } from './checking.js';
import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { captureIfImmediate } from './immediate-capture.js';
import { lookupWithGrace } from './lookup.js';
import { outcomeKept, recordOrKeep } from './outcome-recorder.js';
import {
  isCountedNotDone,
  lateLandingIntervalCap,
  lateLandingResumeSince,
  lateLandingWatchEnd,
  NOT_FOUND_MESSAGE,
} from './late-landing.js';
import { cancelBody, instrumentTypeOf, otherDoneCancels, ourCancelIn } from './cancel-outcome.js';
import {
  applyOperationRecord,
  finishCancel,
  journalOperation,
  resolveUntilKnown,
  resolveRefund,
  finishRefund,
  statusIdOf,
} from './operations.js';
import { isUnknownIdAnswer, platformReason } from './outcome.js';
import { keepChecking, notFoundIsPlatformWord, platformIdOf, qrCheckEnd, qrWindowClosed } from './qr-call.js';
import { recordStatus, type PlatformRecord } from './records.js';
import {
  afterRefusedCancel,
  afterReversalRefund,
  cancelAnswered,
  cancelFailed,
  earlierCancelLanded,
  landedLate,
  openReversalCancel,
  openReversalRefund,
  outcomeNeverRecorded,
  pendingReversalOperation,
  recoveryStep,
  refundedInFull,
  refundFailed,
  reversalCancelAmount,
  reversalRefundAmount,
  reversedByRefund,
} from './reversal-outcome.js';

/**
 * Unknown outcome of a sale (docs/payments.md, "Unknown outcome: resolution and
 * reversal"): look it up by the
 * client id; found: adopt; not found: it did not happen; the lookup fails: reverse it
 * (cancel Technical, full amount), retried with backoff until the platform answers.
 * A terminal QR call sale is looked up by the server id an answer gave, and "not found" is
 * no word on it: it stays being checked (qr-call.ts).
 */
export async function resolveSale(ctx: PaymentContext, sale: JournalRow): Promise<JournalRow> {
  // Said before the first lookup: the sale is no longer "sent, waiting for the answer" but
  // unknown, and its view tells the clerk so (checking.ts; docs/local-api.md, "A sale, step by step").
  // A journal that cannot write it changes nothing of the lookup ("Journal", writes that fail).
  if (sale.kind === 'sale' && sale.state === 'in_flight' && !outcomeBeingChecked(sale)) {
    try {
      sale = ctx.save(sale.clientTransactionId, { message: LOOKUP_MESSAGE });
    } catch (err) {
      if (!isAgentError(err, ErrorCodes.JOURNAL_UNWRITABLE)) throw err;
    }
  }
  const found = await lookupWithGrace(ctx, platformIdOf(sale), sale);
  if (found.kind === 'not_found')
    return notFoundIsPlatformWord(sale)
      ? countNotDone(ctx, sale.clientTransactionId)
      : keepChecking(ctx, sale.clientTransactionId);
  if (found.kind === 'failed') {
    const err = found.error;
    ctx.log.warn(
      { clientTransactionId: sale.clientTransactionId, code: isPlatformError(err) ? err.code : undefined },
      'sale lookup failed; reversing',
    );
    return startReversal(ctx, ctx.journal.require(sale.clientTransactionId));
  }
  const adopted = adoptSaleRecord(ctx, ctx.journal.require(sale.clientTransactionId), found.record).row;
  // Found still waiting for the customer (a wallet QR or confirmation): the relay follows it
  // from here. Start-up recovery and a parked sale's lookup run after the relay read what it
  // follows, so without this such a sale would wait for good (docs/payments.md,
  // "Start-up recovery"); the relay keeps one schedule per sale however often it is told.
  if (adopted.state === 'awaiting_customer' && adopted.serverTransactionId !== undefined) ctx.notifyTracking(adopted);
  return adopted;
}

export function startReversal(ctx: PaymentContext, sale: JournalRow): JournalRow {
  const row =
    sale.state === 'reversing'
      ? sale
      : ctx.save(sale.clientTransactionId, {
          state: 'reversing',
          message: 'the platform did not answer: the sale is being reversed, do not hand over the goods',
        });
  ctx.background('reversal', () => reverseUntilAnswered(ctx, row.clientTransactionId));
  return row;
}

/** The reversal loop: ends when the platform answered (reversed, never charged, or a person must decide). */
export async function reverseUntilAnswered(ctx: PaymentContext, saleId: string): Promise<void> {
  const started = ctx.clock.mono();
  const p = ctx.config.payments;
  for (let attempt = 0; ; attempt++) {
    const sale = ctx.journal.require(saleId);
    if (sale.state !== 'reversing') return;
    if (await reverseOnceOrWait(ctx, sale)) return;
    const delay = reversalDelay(attempt, ctx.clock.mono() - started, {
      baseMs: ctx.retryBaseMs,
      backgroundCapMs: p.reversalRetryCapMs,
      waitingCapMs: p.reversalWaitingRetryCapMs,
      waitingMs: p.reversalWaitingMs,
      random: ctx.random,
    });
    ctx.log.info(
      { clientTransactionId: saleId, attempt: attempt + 1, delayMs: delay },
      'reversal not answered; retrying',
    );
    await ctx.clock.sleep(delay, ctx.stopSignal);
  }
}

/**
 * One attempt; a journal that cannot write its attempt first (write-ahead: docs/journal.md,
 * "Journal", writes that fail) sends nothing and is tried again after the backoff, never given up.
 */
async function reverseOnceOrWait(ctx: PaymentContext, sale: JournalRow): Promise<boolean> {
  try {
    return await reverseOnce(ctx, sale);
  } catch (err) {
    if (!isAgentError(err, ErrorCodes.JOURNAL_UNWRITABLE)) throw err;
    ctx.log.warn(
      { clientTransactionId: sale.clientTransactionId, err: describeError(err) },
      'reversal waits for the journal',
    );
    return false;
  }
}

/** The cancel row of the reversal: one per sale, reused by every attempt (same clientDateTime). */
function reversalOperation(ctx: PaymentContext, sale: JournalRow): JournalRow {
  const existing = openReversalCancel(ctx.journal.related(sale.clientTransactionId));
  if (existing !== undefined) {
    // As journalOperation (below) does for a new one: not sent again while the sale's own state is only in memory.
    ctx.journal.requireWritten(sale.clientTransactionId);
    return ctx.save(existing.clientTransactionId, { attempts: existing.attempts + 1 }, { quiet: true });
  }
  return journalOperation(ctx, sale, { kind: 'cancel', amount: reversalCancelAmount(sale), cancelReason: 'Technical' });
}

/**
 * A reversal's cancel or refund the platform answered pending is followed here, by its
 * status call, until final (the relay follows it too; whichever comes first applies it):
 * the sale stays `reversing` meanwhile. Undefined when none is pending.
 */
async function followPendingReversal(ctx: PaymentContext, sale: JournalRow): Promise<boolean | undefined> {
  const pending = pendingReversalOperation(ctx.journal.related(sale.clientTransactionId));
  if (pending === undefined) return undefined;
  let record: PlatformRecord;
  try {
    record = await ctx.platform.status(statusIdOf(pending), ctx.callOptions(sale));
  } catch (err) {
    ctx.log.info(
      { clientTransactionId: sale.clientTransactionId, code: isPlatformError(err) ? err.code : undefined },
      'pending reversal not looked up; retrying',
    );
    return false;
  }
  const applied = applyOperationRecord(ctx, pending, record);
  if (!applied.final) return false;
  return pending.kind === 'refund'
    ? settleAfterRefund(ctx, sale.clientTransactionId, applied.row)
    : settleAfterCancel(ctx, sale.clientTransactionId, applied.row);
}

/** After the reversal's cancel was answered: reversed, still pending (followed), or refused in a 2xx answer (settled from the sale's status). */
async function settleAfterCancel(ctx: PaymentContext, saleId: string, cancel: JournalRow): Promise<boolean> {
  const answered = cancelAnswered(cancel);
  if (answered !== 'refused') return answered === 'reversed';
  return settleRefusedReversal(ctx, saleId, new Error(cancel.message ?? 'the reversal was not done'));
}

/** One reversal attempt; true when the platform answered and the sale is settled. */
async function reverseOnce(ctx: PaymentContext, sale: JournalRow): Promise<boolean> {
  const related = ctx.journal.related(sale.clientTransactionId);
  // An answer of the reversal's refund waits for the journal (outcome-recorder.ts): it is written first.
  if (related.some((r) => outcomeKept(ctx, r.clientTransactionId))) return false;
  // Its refund is done (written once the journal took it): everything charged went back.
  if (refundedInFull(sale)) {
    ctx.save(sale.clientTransactionId, reversedByRefund());
    return true;
  }
  const followed = await followPendingReversal(ctx, sale);
  if (followed !== undefined) return followed;
  const op = reversalOperation(ctx, sale);
  if (op.attempts > 1) {
    const landed = await earlierAttemptLanded(ctx, sale, op);
    // Not readable, or the platform still completing the earlier cancel: look again later, never send twice.
    if (landed === undefined || landed === 'pending') return false;
    if (landed) {
      finishCancel(ctx, op, undefined);
      ctx.log.info({ clientTransactionId: sale.clientTransactionId }, 'sale reversed (an earlier attempt landed)');
      return true;
    }
  }
  try {
    const record = await ctx.platform.cancel(platformIdOf(sale), cancelBody(ctx, sale, op), ctx.callOptions(sale));
    const cancel = finishCancel(ctx, op, record);
    if (cancel.state === 'approved') ctx.log.info({ clientTransactionId: sale.clientTransactionId }, 'sale reversed');
    else
      ctx.log.info(
        { clientTransactionId: sale.clientTransactionId, state: cancel.state, platformStatus: cancel.platformStatus },
        'reversal answered, not final yet or not done',
      );
    return settleAfterCancel(ctx, sale.clientTransactionId, cancel);
  } catch (err) {
    // The sale's own request may still be on its way and land after a "not found": as for
    // lookups, it counts only once the grace since the sale went in flight has passed.
    const failed = cancelFailed(err, sale.updatedAt, ctx.clock.wall(), ctx.config.payments.lookupGraceMs);
    if (failed === 'retry') return false;
    if (failed === 'not_found') {
      if (!notFoundIsPlatformWord(sale)) return unknownToPlatform(ctx, sale, op);
      ctx.save(op.clientTransactionId, {
        state: 'failed',
        message: 'nothing to reverse: the platform has no record of the sale',
      });
      countNotDone(ctx, sale.clientTransactionId);
      return true;
    }
    if (failed === 'approval_code') {
      ctx.save(op.clientTransactionId, {
        state: 'failed',
        message: 'the platform requires a supervisor approval code for the reversal',
      });
      ctx.save(sale.clientTransactionId, {
        state: 'needs_attention',
        message:
          'the sale could not be reversed automatically: the platform requires a supervisor approval code; cancel or refund it with the code',
      });
      return true;
    }
    // The platform answered but would not cancel: see what it has and settle from there.
    ctx.save(op.clientTransactionId, { state: 'failed', message: `reversal refused: ${platformReason(err)}` });
    return settleRefusedReversal(ctx, sale.clientTransactionId, err);
  }
}

/**
 * A reversal of a terminal QR call sale the payment API answers "not found" for: no word on
 * the money (qr-call.ts), so the cancel is tried again while the platform's window for the
 * sale is open; once it closed, a person settles the sale.
 */
function unknownToPlatform(ctx: PaymentContext, sale: JournalRow, op: JournalRow | undefined): boolean {
  if (ctx.clock.wall() < qrCheckEnd(sale, ctx.config.payments.lateLandingWatchMs)) return false;
  if (op !== undefined && op.state === 'in_flight')
    ctx.save(op.clientTransactionId, {
      state: 'failed',
      message: 'the platform does not know the sale by the id the terminal has: not reversed',
    });
  qrWindowClosed(ctx, sale.clientTransactionId);
  return true;
}

/**
 * Before a reversal's cancel goes out again: did an earlier attempt, whose answer was lost,
 * land? The cancel carries no id, so the sale's history says (our cancel in it, or the sale
 * `cancelled`: docs/platform-contract.md, "Decisions where the spec is silent", recognising
 * a cancel). 'pending': our cancel is there without its result yet; undefined: the sale
 * could not be read; both mean try later. A sale the platform does not know (404) is left
 * to the cancel's own answer.
 */
async function earlierAttemptLanded(
  ctx: PaymentContext,
  sale: JournalRow,
  op: JournalRow,
): Promise<boolean | 'pending' | undefined> {
  let record: PlatformRecord;
  try {
    record = await ctx.platform.status(platformIdOf(sale), ctx.callOptions(sale));
  } catch (err) {
    return isUnknownIdAnswer(err) ? false : undefined;
  }
  return earlierCancelLanded(ourCancelIn(record, op, otherDoneCancels(ctx, op)), recordStatus(record));
}

async function settleRefusedReversal(ctx: PaymentContext, saleId: string, refusal: unknown): Promise<boolean> {
  const sale = ctx.journal.require(saleId);
  let record: PlatformRecord;
  try {
    record = await ctx.platform.status(platformIdOf(sale), ctx.callOptions(sale));
  } catch (err) {
    if (!isUnknownIdAnswer(err)) return false;
    // As for the cancel's own 404: absence counts only once the grace since the sale went reversing has passed.
    if (ctx.clock.wall() < Date.parse(sale.updatedAt) + ctx.config.payments.lookupGraceMs) return false;
    if (!notFoundIsPlatformWord(sale))
      return unknownToPlatform(ctx, sale, openReversalCancel(ctx.journal.related(saleId)));
    countNotDone(ctx, saleId);
    return true;
  }
  const next = afterRefusedCancel(record, sale.currency, platformReason(refusal));
  // A captured card sale is refunded, not cancelled: the reversal becomes a full refund
  // (docs/platform-contract.md, "Decisions where the spec is silent", reversal).
  if (next.kind === 'refund') return reverseByRefund(ctx, sale, record);
  // Nothing is charged: take the platform's word (events and status), then settle the state.
  if (next.kind === 'settled') adoptSaleRecord(ctx, sale, record, { quiet: true });
  ctx.save(saleId, next.settlement);
  return true;
}

async function reverseByRefund(ctx: PaymentContext, sale: JournalRow, record: PlatformRecord): Promise<boolean> {
  // Adopt the captured amount first (the reversing state is kept).
  adoptSaleRecord(ctx, sale, record, { quiet: true });
  const current = ctx.journal.require(sale.clientTransactionId);
  const op =
    openReversalRefund(ctx.journal.related(sale.clientTransactionId)) ??
    journalOperation(ctx, current, { kind: 'refund', amount: reversalRefundAmount(current) });
  try {
    const answer = await ctx.platform.refund(
      current.clientTransactionId,
      {
        clientDateTime: op.clientDateTime,
        channel: ctx.channel,
        clientNewTransactionId: op.clientTransactionId,
        refundAmount: { amount: op.amount, currency: current.currency },
        instrument: { instrumentType: instrumentTypeOf(current) },
      },
      ctx.callOptions(current),
    );
    const refund = recordOrKeep(ctx, op, () => finishRefund(ctx, op, answer));
    return settleAfterRefund(ctx, current.clientTransactionId, refund);
  } catch (err) {
    const failed = refundFailed(err);
    if (failed === 'resolve') {
      const resolved = await resolveUntilKnown(ctx, op, (o) => resolveRefund(ctx, o));
      return settleAfterRefund(ctx, current.clientTransactionId, ctx.journal.require(op.clientTransactionId), resolved);
    }
    if (failed === 'retry') return false;
    ctx.save(op.clientTransactionId, { state: 'failed', message: `refund refused: ${platformReason(err)}` });
    ctx.save(current.clientTransactionId, {
      state: 'needs_attention',
      message: `the captured sale could not be refunded automatically (${platformReason(err)}): refund it by hand`,
    });
    return true;
  }
}

function settleAfterRefund(
  ctx: PaymentContext,
  saleId: string,
  refund: JournalRow,
  resolved: 'done' | 'not_happened' | 'unknown' = 'done',
): boolean {
  // Answered pending: followed on the next attempt (followPendingReversal); answered while the
  // journal could not write (still in_flight, its answer kept): written first, then settled.
  const settlement = afterReversalRefund(refund, resolved);
  if (settlement === undefined) return false;
  ctx.save(saleId, settlement);
  return true;
}

/**
 * A sale set aside as `needs_attention` whose platform outcome was never recorded: no
 * platform status, not offline, and no reversal or refund of it tried (those rows carry
 * what a person must decide). Its request left, so the platform may have charged it: it is
 * looked up at start like a row left in flight (docs/payments.md, "Start-up recovery").
 */
export function outcomeUnsettled(ctx: PaymentContext, row: JournalRow): boolean {
  return outcomeNeverRecorded(row, () => ctx.journal.related(row.clientTransactionId));
}

/**
 * A sale this process set aside as `needs_attention` with its outcome unknown (its flow
 * stopped after the request left: PaymentService.startSale) is looked up in the background
 * as soon as the journal writes again, exactly as start-up recovery would, not left until the
 * next start (docs/payments.md, "Unknown outcome: resolution and reversal"). Retried with
 * backoff, never given up, while the row is still that verdict.
 */
export async function resolveParkedSale(ctx: PaymentContext, saleId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await ctx.clock.sleep(
      backoffDelay(attempt, {
        baseMs: ctx.retryBaseMs,
        capMs: ctx.config.payments.reversalWaitingRetryCapMs,
        random: ctx.random,
      }),
      ctx.stopSignal,
    );
    const row = ctx.journal.get(saleId);
    if (row === undefined || !outcomeUnsettled(ctx, row)) return;
    if (!ctx.journal.retryWrites().writable) continue;
    try {
      const after = await resolveSale(ctx, row);
      await captureIfImmediate(ctx, after);
      return;
    } catch (err) {
      ctx.log.warn(
        { clientTransactionId: saleId, err: describeError(err) },
        'sale set aside with its outcome unknown not resolved yet; retrying',
      );
    }
  }
}

/**
 * Start-up (docs/payments.md, "Start-up recovery"): every row whose platform outcome is
 * not settled (left in flight, reversing, or set aside with its outcome unknown) is
 * resolved the same way, by looking it up; a sale interrupted before its request left did
 * not happen.
 */
export async function recoverAll(
  ctx: PaymentContext,
  resolveOp: (op: JournalRow) => Promise<void>,
): Promise<{ resolved: number; reversing: number; failed: number }> {
  const summary = { resolved: 0, reversing: 0, failed: 0 };
  const open = ctx.journal.inStates(['created', 'awaiting_customer', 'in_flight', 'reversing']);
  const unsettled = ctx.journal.inStates(['needs_attention']).filter((r) => outcomeUnsettled(ctx, r));
  for (const listed of [...open, ...unsettled]) {
    // Only what an earlier process left: this process's own sales are live (their flows
    // finish them), and a row that changed since it was listed is someone's current work.
    if (ctx.startedHere(listed.clientTransactionId)) continue;
    const row = ctx.journal.get(listed.clientTransactionId);
    if (row === undefined || row.state !== listed.state || row.updatedAt !== listed.updatedAt) continue;
    try {
      const step = recoveryStep(row);
      if (step === 'resume_reversal') {
        ctx.background('reversal', () => reverseUntilAnswered(ctx, row.clientTransactionId));
        summary.reversing++;
      } else if (step === 'resolve_operation' || step === 'operation_not_sent') {
        if (step === 'resolve_operation') await resolveOp(row);
        else
          ctx.save(row.clientTransactionId, {
            state: 'failed',
            message: 'interrupted before it was sent: nothing was done',
          });
        summary.resolved++;
      } else if (step === 'resolve_sale') {
        const after = await resolveSale(ctx, row);
        if (after.state === 'reversing') summary.reversing++;
        else summary.resolved++;
        // An authorization adopted here is captured as the sale's own answer would have been.
        await captureIfImmediate(ctx, after);
      } else if (step === 'sale_not_sent') {
        // The crash came while waiting for the card or the scan: nothing was sent.
        ctx.save(row.clientTransactionId, {
          state: 'failed',
          message: 'interrupted before it was sent to the platform: nothing was charged',
        });
        summary.failed++;
      }
      // 'leave': awaiting_customer with a platform transaction: the relay follows it (pendingTracking).
    } catch (err) {
      ctx.log.error(
        { clientTransactionId: row.clientTransactionId, err: describeError(err) },
        'could not resolve a journal row at start-up',
      );
    }
  }
  resumeLateLandingWatches(ctx);
  return summary;
}

/**
 * A sale the platform has no record of after the grace: told "nothing was charged", and
 * watched until the platform's window for it ends in case the request still lands.
 */
function countNotDone(ctx: PaymentContext, saleId: string): JournalRow {
  const failed = ctx.save(saleId, { state: 'failed', message: NOT_FOUND_MESSAGE });
  if (lateLandingWatchEnd(failed, ctx.config.payments.lateLandingWatchMs) !== undefined) {
    ctx.background('late landing watch', () => watchLateLanding(ctx, saleId), { watch: true });
  }
  return failed;
}

/**
 * Sales counted as not done before a restart whose window is still open: their watch
 * resumes. The query reads only rows updated within the longest window (`updated_at > ?`
 * on the (state, updated_at) index), never every failed row of the journal's history.
 */
function resumeLateLandingWatches(ctx: PaymentContext): void {
  const watchMs = ctx.config.payments.lateLandingWatchMs;
  if (watchMs <= 0) return;
  const now = ctx.clock.wall();
  const since = new Date(lateLandingResumeSince(now, watchMs)).toISOString();
  for (const row of ctx.journal.list({ states: ['failed'], kind: 'sale', updatedAfter: since })) {
    if (!isCountedNotDone(row) || ctx.startedHere(row.clientTransactionId)) continue;
    const end = lateLandingWatchEnd(row, watchMs);
    if (end === undefined || end <= now) continue;
    ctx.background('late landing watch', () => watchLateLanding(ctx, row.clientTransactionId), { watch: true });
  }
}

/**
 * A sale counted as not done after the lookup grace may still land at the platform (a
 * request held somewhere on the way): the customer was told nothing was charged, so the
 * agent keeps looking for it, with a growing interval, until the platform's window for the
 * sale ends (late-landing.ts), and reverses it if it lands (docs/payments.md, "Unknown
 * outcome: resolution and reversal"). Only while the row is still that verdict; after a
 * restart, recovery resumes it for what is left of the window.
 */
async function watchLateLanding(ctx: PaymentContext, saleId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const before = ctx.journal.get(saleId);
    if (before === undefined || !isCountedNotDone(before)) return;
    const end = lateLandingWatchEnd(before, ctx.config.payments.lateLandingWatchMs);
    const now = ctx.clock.wall();
    if (end === undefined || now >= end) return;
    const counted = Date.parse(before.updatedAt);
    const cap = lateLandingIntervalCap(Number.isNaN(counted) ? 0 : now - counted);
    await ctx.clock.sleep(
      Math.min(
        end - now,
        backoffDelay(attempt, { baseMs: Math.max(ctx.retryBaseMs, 500), capMs: cap, random: ctx.random }),
      ),
      ctx.stopSignal,
    );
    const row = ctx.journal.get(saleId);
    if (row === undefined || !isCountedNotDone(row)) return;
    let record: PlatformRecord;
    try {
      record = await ctx.platform.status(saleId, ctx.callOptions(row));
    } catch {
      continue; // not there yet (404) or not readable now: look again
    }
    if (!landedLate(record)) return;
    ctx.log.warn(
      { clientTransactionId: saleId, platformStatus: recordStatus(record) },
      'a sale landed at the platform after it was counted as not done: reversing it',
    );
    startReversal(
      ctx,
      ctx.save(saleId, {
        state: 'reversing',
        message: 'the sale reached the platform after the customer was told nothing was charged: it is being reversed',
      }),
    );
    return;
  }
}
