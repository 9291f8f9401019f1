import type { CancelRequest } from '../platform/index.js';
import type { JournalRow } from './journal/index.js';
import type { PaymentContext } from './payment-context.js';
import { readAmount, recordEvents, type PlatformRecord } from './records.js';
import { asObject, REFUSED_RESULT, sameInstant, text } from './history-fields.js';

/**
 * A cancel as the contract has it, and how the agent finds its own cancel again when the
 * answer was lost (docs/platform-contract.md, "Endpoints", cancel, and "Decisions where the
 * spec is silent", recognising a cancel whose answer was lost).
 */

export const instrumentTypeOf = (sale: JournalRow): string =>
  sale.method === 'walletA' || sale.method === 'walletB' ? sale.method : 'card';

/**
 * The cancel body: exactly clientDateTime, channel, cancelReason, cancelAmount, instrument
 * {instrumentType}, plus `approvalCode` when staff give one. No client id: the contract's
 * cancel body has none. `clientDateTime` is the cancel row's, the same on every attempt,
 * which is what lets the agent recognise its cancel in the sale's history.
 */
export function cancelBody(
  ctx: Pick<PaymentContext, 'channel'>,
  sale: JournalRow,
  op: JournalRow,
  approvalCode?: string,
): CancelRequest {
  return {
    clientDateTime: op.clientDateTime,
    channel: ctx.channel,
    cancelReason: op.cancelReason ?? 'Functional',
    cancelAmount: { amount: op.amount, currency: sale.currency },
    instrument: { instrumentType: instrumentTypeOf(sale) },
    ...(approvalCode !== undefined ? { approvalCode } : {}),
  };
}

/** One cancel the sale's history shows: its request event and what its result event says. */
interface CancelSeen {
  amount: number | undefined;
  currency: string | undefined;
  reason: string | undefined;
  clientDateTime: string | undefined;
  outcome: 'accepted' | 'refused' | 'unknown';
}

const ACCEPTED = /accept|success|approv|^ok$|done|cancel|revers|void/i;

/**
 * The cancels in a sale's history: each event with a `cancelAmount` is one cancel's request;
 * the first later event about a cancel with a `result` (before the next request) is its
 * result. Events the agent does not know are passed over.
 */
export function cancelsInHistory(record: PlatformRecord): CancelSeen[] {
  const events = recordEvents(record);
  const seen: CancelSeen[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as Record<string, unknown>;
    const amount = asObject(e.cancelAmount);
    if (amount === undefined) continue;
    let outcome: CancelSeen['outcome'] = 'unknown';
    for (let j = i + 1; j < events.length; j++) {
      const next = events[j] as Record<string, unknown>;
      if (asObject(next.cancelAmount) !== undefined) break;
      const result = text(next.result);
      // Stryker disable next-line StringLiteral: an event without a type read as any other text without "cancel" is passed over the same
      if (result === undefined || !/cancel/i.test(text(next.eventType) ?? '')) continue;
      outcome = REFUSED_RESULT.test(result) ? 'refused' : ACCEPTED.test(result) ? 'accepted' : 'unknown';
      break;
    }
    seen.push({
      // `amount` as an integer or digits, or `value` in its place (docs/platform-contract.md, "Tolerance of answers", amounts).
      amount: readAmount(amount),
      currency: text(amount.currency),
      reason: text(e.cancelReason),
      clientDateTime: text(e.clientDateTime),
      outcome,
    });
  }
  return seen;
}

/**
 * Our cancel in the sale's history, found without any id of its own:
 * - an event with our `clientDateTime` (kept on every attempt) and our amount is ours;
 * - failing that, events that carry no `clientDateTime` but our amount (and currency and
 *   reason where they say) are counted: more of them than our other cancels of that amount
 *   the journal already holds as done means one of them is ours.
 * An event with another `clientDateTime` is someone else's cancel (sent at another time).
 * Returns what its result says ('unknown' when the history shows no result), or undefined.
 */
export function ourCancelIn(
  record: PlatformRecord,
  op: JournalRow,
  otherDone: readonly JournalRow[],
): CancelSeen['outcome'] | undefined {
  const seen = cancelsInHistory(record);
  const fits = (c: CancelSeen): boolean =>
    c.amount === op.amount &&
    (c.currency === undefined || c.currency === op.currency) &&
    (c.reason === undefined || op.cancelReason === undefined || c.reason === op.cancelReason);
  const exact = seen.find((c) => c.amount === op.amount && sameInstant(c.clientDateTime, op.clientDateTime));
  if (exact !== undefined) return exact.outcome;
  const anonymous = seen.filter((c) => c.clientDateTime === undefined && fits(c));
  // Our other cancels of this amount that no dated event accounts for explain the anonymous ones first.
  const explained = otherDone.filter(
    (r) =>
      r.amount === op.amount &&
      !seen.some((c) => c.amount === r.amount && sameInstant(c.clientDateTime, r.clientDateTime)),
  ).length;
  // None left to be ours (none at all, or all explained): not found.
  return anonymous.length > explained ? (anonymous[explained] as CancelSeen).outcome : undefined;
}

/** The sale's other cancels the journal holds as done (they explain cancels in its history). */
export function otherDoneCancels(ctx: Pick<PaymentContext, 'journal'>, op: JournalRow): JournalRow[] {
  const saleId = op.relatedClientTransactionId as string;
  return ctx.journal
    .related(saleId)
    .filter((r) => r.kind === 'cancel' && r.clientTransactionId !== op.clientTransactionId && r.state === 'approved');
}
