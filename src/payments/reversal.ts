import { backoffDelay, sleep } from '../core/index.js';
import { describeError } from '../core/errors.js';
import { isPlatformError } from '../platform/errors.js';
import { adoptSaleRecord } from './adopt.js';
import type { Engine } from './engine.js';
import type { JournalRow } from './journal/index.js';
import { lookupWithGrace } from './lookup.js';
import { finishCancel, instrumentTypeOf, journalOperation, resolveUntilKnown, resolveRefund, finishRefund } from './operations.js';
import { failureKind, isApprovalCodeRefusal, isNotFoundError, platformReason } from './outcome.js';
import { classifyStatus, recordStatus, type PlatformRecord } from './records.js';

/**
 * Unknown outcome of a sale (issue 4 "Unknown outcomes", DESIGN.md): look it up by the
 * client id; found: adopt; not found: it did not happen; the lookup fails: reverse it
 * (cancel Technical, full amount), retried with backoff until the platform answers.
 */
export async function resolveSale(e: Engine, sale: JournalRow): Promise<JournalRow> {
  const found = await lookupWithGrace(e, sale.clientTransactionId, sale);
  if (found.kind === 'not_found') {
    return e.save(sale.clientTransactionId, { state: 'failed', message: 'the platform has no record of this sale: nothing was charged' });
  }
  if (found.kind === 'failed') {
    const err = found.error;
    e.log.warn({ clientTransactionId: sale.clientTransactionId, code: isPlatformError(err) ? err.code : undefined }, 'sale lookup failed; reversing');
    return startReversal(e, e.journal.require(sale.clientTransactionId));
  }
  return adoptSaleRecord(e, e.journal.require(sale.clientTransactionId), found.record).row;
}

export function startReversal(e: Engine, sale: JournalRow): JournalRow {
  const row =
    sale.state === 'reversing'
      ? sale
      : e.save(sale.clientTransactionId, {
          state: 'reversing',
          message: 'the platform did not answer: the sale is being reversed, do not hand over the goods',
        });
  e.background('reversal', () => reverseUntilAnswered(e, row.clientTransactionId));
  return row;
}

/** The reversal loop: ends when the platform answered (reversed, never charged, or a person must decide). */
export async function reverseUntilAnswered(e: Engine, saleId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const sale = e.journal.require(saleId);
    if (sale.state !== 'reversing') return;
    if (await reverseOnce(e, sale)) return;
    const delay = backoffDelay(attempt, { baseMs: e.retryBaseMs, capMs: e.config.payments.reversalRetryCapMs, random: e.random });
    e.log.info({ clientTransactionId: saleId, attempt: attempt + 1, delayMs: delay }, 'reversal not answered; retrying');
    await sleep(delay, e.stopSignal);
  }
}

/** The cancel row of the reversal: one per sale, reused by every attempt (same clientDateTime). */
function reversalOperation(e: Engine, sale: JournalRow): JournalRow {
  const existing = e.journal.related(sale.clientTransactionId).find((r) => r.kind === 'cancel' && r.cancelReason === 'Technical' && r.state === 'in_flight');
  const amount = sale.amount - sale.cancelledAmount - sale.refundedAmount;
  if (existing !== undefined) return e.save(existing.clientTransactionId, { attempts: existing.attempts + 1 }, { quiet: true });
  return journalOperation(e, sale, { kind: 'cancel', amount, cancelReason: 'Technical' });
}

/** One reversal attempt; true when the platform answered and the sale is settled. */
async function reverseOnce(e: Engine, sale: JournalRow): Promise<boolean> {
  const op = reversalOperation(e, sale);
  try {
    const record = await e.platform.cancel(
      sale.clientTransactionId,
      {
        clientDateTime: op.clientDateTime,
        channel: e.channel,
        cancelReason: 'Technical',
        cancelAmount: { amount: op.amount, currency: sale.currency },
        instrument: { instrumentType: instrumentTypeOf(sale) },
        clientNewTransactionId: op.clientTransactionId,
      },
      e.callOptions(sale),
    );
    finishCancel(e, op, record);
    e.log.info({ clientTransactionId: sale.clientTransactionId }, 'sale reversed');
    return true;
  } catch (err) {
    if (isNotFoundError(err)) {
      // The sale's own request may still be on its way and land after this answer: as for
      // lookups, "not found" counts only once the grace since the sale went in flight (its
      // last update, when it became reversing) has passed; until then the reversal is retried.
      const since = Date.parse(sale.updatedAt);
      if (!Number.isNaN(since) && e.now() < since + e.config.payments.lookupGraceMs) return false;
      e.save(op.clientTransactionId, { state: 'failed', message: 'nothing to reverse: the platform has no record of the sale' });
      e.save(sale.clientTransactionId, { state: 'failed', message: 'the platform has no record of this sale: nothing was charged' });
      return true;
    }
    if (failureKind(err) !== 'refused') return false;
    if (isApprovalCodeRefusal(err)) {
      e.save(op.clientTransactionId, { state: 'failed', message: 'the platform requires a supervisor approval code for the reversal' });
      e.save(sale.clientTransactionId, {
        state: 'needs_attention',
        message: 'the sale could not be reversed automatically: the platform requires a supervisor approval code; cancel or refund it with the code',
      });
      return true;
    }
    // The platform answered but would not cancel: see what it has and settle from there.
    e.save(op.clientTransactionId, { state: 'failed', message: `reversal refused: ${platformReason(err)}` });
    return settleRefusedReversal(e, sale.clientTransactionId, err);
  }
}

async function settleRefusedReversal(e: Engine, saleId: string, refusal: unknown): Promise<boolean> {
  const sale = e.journal.require(saleId);
  let record: PlatformRecord;
  try {
    record = await e.platform.status(saleId, e.callOptions(sale));
  } catch (err) {
    if (isNotFoundError(err)) {
      e.save(saleId, { state: 'failed', message: 'the platform has no record of this sale: nothing was charged' });
      return true;
    }
    return false;
  }
  const status = recordStatus(record);
  const cls = classifyStatus(status);
  // Nothing is charged: take the platform's word (events and status), then settle the state.
  if (cls === 'cancelled' || cls === 'refused' || cls === 'failed' || cls === 'expired') {
    adoptSaleRecord(e, sale, record, { quiet: true });
    if (cls === 'cancelled') e.save(saleId, { state: 'reversed', message: 'reversed: nothing is charged' });
    else if (cls === 'refused') e.save(saleId, { state: 'declined', message: 'declined by the platform: nothing is charged' });
    else e.save(saleId, { state: 'failed', message: `the platform reports ${status ?? 'a failure'}: nothing is charged` });
    return true;
  }
  if (cls === 'charged' && /^captured$/i.test(status ?? '')) {
    // A captured card sale is refunded, not cancelled (spec rule 3): the reversal becomes a full refund.
    return reverseByRefund(e, sale, record);
  }
  e.save(saleId, {
    state: 'needs_attention',
    message: `the sale could not be reversed (${platformReason(refusal)}); the platform reports "${status ?? ''}": check it and refund if charged`,
  });
  return true;
}

async function reverseByRefund(e: Engine, sale: JournalRow, record: PlatformRecord): Promise<boolean> {
  // Adopt the captured amount first (the reversing state is kept).
  adoptSaleRecord(e, sale, record, { quiet: true });
  const current = e.journal.require(sale.clientTransactionId);
  const open = e.journal.related(sale.clientTransactionId).find((r) => r.kind === 'refund' && r.state === 'in_flight');
  const amount = open?.amount ?? (current.capturedAmount || current.amount) - current.refundedAmount;
  const op = open ?? journalOperation(e, current, { kind: 'refund', amount });
  try {
    const answer = await e.platform.refund(
      current.clientTransactionId,
      {
        clientDateTime: op.clientDateTime,
        channel: e.channel,
        clientNewTransactionId: op.clientTransactionId,
        refundAmount: { amount: op.amount, currency: current.currency },
        instrument: { instrumentType: instrumentTypeOf(current) },
      },
      e.callOptions(current),
    );
    const refund = finishRefund(e, op, answer);
    return settleAfterRefund(e, current.clientTransactionId, refund);
  } catch (err) {
    if (failureKind(err) === 'unknown') {
      const resolved = await resolveUntilKnown(e, op, (o) => resolveRefund(e, o));
      return settleAfterRefund(e, current.clientTransactionId, e.journal.require(op.clientTransactionId), resolved);
    }
    if (failureKind(err) === 'not_sent') return false;
    e.save(op.clientTransactionId, { state: 'failed', message: `refund refused: ${platformReason(err)}` });
    e.save(current.clientTransactionId, {
      state: 'needs_attention',
      message: `the captured sale could not be refunded automatically (${platformReason(err)}): refund it by hand`,
    });
    return true;
  }
}

function settleAfterRefund(e: Engine, saleId: string, refund: JournalRow, resolved: 'done' | 'not_happened' | 'unknown' = 'done'): boolean {
  if (refund.state === 'approved') {
    e.save(saleId, { state: 'reversed', message: 'reversed by a refund (the sale was captured): nothing is charged' });
    return true;
  }
  if (resolved === 'not_happened') return false;
  e.save(saleId, { state: 'needs_attention', message: `the reversal refund ended ${refund.state}: ${refund.message ?? ''}; check the sale` });
  return true;
}

/**
 * Start-up (issue 4): every row left in flight or reversing by a crash is resolved the
 * same way; a sale interrupted before its request left did not happen.
 */
export async function recoverAll(e: Engine, resolveOp: (op: JournalRow) => Promise<void>): Promise<{ resolved: number; reversing: number; failed: number }> {
  const summary = { resolved: 0, reversing: 0, failed: 0 };
  for (const row of e.journal.inStates(['created', 'awaiting_customer', 'in_flight', 'reversing'])) {
    try {
      if (row.state === 'reversing') {
        e.background('reversal', () => reverseUntilAnswered(e, row.clientTransactionId));
        summary.reversing++;
      } else if (row.kind !== 'sale') {
        if (row.state === 'in_flight') await resolveOp(row);
        else e.save(row.clientTransactionId, { state: 'failed', message: 'interrupted before it was sent: nothing was done' });
        summary.resolved++;
      } else if (row.state === 'in_flight') {
        const after = await resolveSale(e, row);
        if (after.state === 'reversing') summary.reversing++;
        else summary.resolved++;
      } else if (row.serverTransactionId === undefined) {
        // The crash came while waiting for the card or the scan: nothing was sent.
        e.save(row.clientTransactionId, { state: 'failed', message: 'interrupted before it was sent to the platform: nothing was charged' });
        summary.failed++;
      }
      // awaiting_customer with a platform transaction: the relay follows it (pendingTracking).
    } catch (err) {
      e.log.error({ clientTransactionId: row.clientTransactionId, err: describeError(err) }, 'could not resolve a journal row at start-up');
    }
  }
  return summary;
}
