import { backoffDelay, describeError, ErrorCodes, isAgentError } from '../core/index.js';
import type { JournalRow } from './journal/index.js';
import type { PaymentContext } from './payment-context.js';

/**
 * A platform answer of a capture, cancel or refund the journal could not take
 * (docs/journal.md, "Journal", writes that fail; "Capture, cancel, refund"): the answer
 * is kept in memory, as the closure that applies it, and applied once the journal writes
 * again, tried with backoff like a reversal and never given up. Meanwhile the operation's
 * row stays `in_flight` (on disk and in every read: its amount stays held against the sale),
 * its message says the outcome is being recorded, and the caller is told just that: never a
 * success or a failure the journal does not hold. A stop before it is written leaves the
 * row `in_flight` on disk, and start-up recovery looks it up ("Start-up recovery").
 *
 * `apply` writes the answer in one journal transaction (the operation and its sale
 * together) and is safe to run again (an operation already done is left alone).
 */
export function recordOrKeep(ctx: PaymentContext, op: JournalRow, apply: () => JournalRow): JournalRow {
  try {
    const row = apply();
    ctx.keptOutcomes.delete(op.clientTransactionId);
    return row;
  } catch (err) {
    if (!isAgentError(err, ErrorCodes.JOURNAL_UNWRITABLE)) throw err;
    const id = op.clientTransactionId;
    const running = ctx.keptOutcomes.has(id);
    // The latest answer wins (a later status of the same operation replaces an earlier one).
    ctx.keptOutcomes.set(id, apply);
    ctx.log.warn(
      { clientTransactionId: id, kind: op.kind, err: describeError(err) },
      'operation answered; its outcome waits for the journal',
    );
    if (!running) ctx.background(`record ${op.kind}`, () => applyWhenWritable(ctx, id));
    const code = typeof err.details?.code === 'string' ? err.details.code : 'the journal cannot write';
    // A message only (not write-ahead): kept in memory by the journal when it cannot write it either.
    return ctx.save(id, {
      message: `outcome being recorded: the platform answered the ${op.kind}, but the journal cannot write (${code}); it is written once space is freed in the data directory: do not repeat the ${op.kind}`,
    });
  }
}

/** Whether an answer of this operation waits for the journal. */
export function outcomeKept(ctx: PaymentContext, id: string): boolean {
  return ctx.keptOutcomes.has(id);
}

async function applyWhenWritable(ctx: PaymentContext, id: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await ctx.clock.sleep(
      backoffDelay(attempt, {
        baseMs: ctx.retryBaseMs,
        capMs: ctx.config.payments.reversalWaitingRetryCapMs,
        random: ctx.random,
      }),
      ctx.stopSignal,
    );
    const apply = ctx.keptOutcomes.get(id);
    if (apply === undefined) return;
    try {
      apply();
      ctx.keptOutcomes.delete(id);
      ctx.log.info({ clientTransactionId: id }, 'kept operation outcome recorded');
      return;
    } catch (err) {
      if (!isAgentError(err, ErrorCodes.JOURNAL_UNWRITABLE)) {
        ctx.keptOutcomes.delete(id);
        throw err;
      }
    }
  }
}
