import type { JournalRow } from './journal/index.js';
import { readAmount, recordEvents, type PlatformRecord } from './records.js';
import { asObject, REFUSED_RESULT, sameInstant, text } from './history-fields.js';

/**
 * How the agent finds its own refund by web in the record of the sale it acted upon, when
 * the answer was lost and the platform does not know the `clientNewTransactionId` the agent
 * invented (docs/platform-contract.md, "Decisions where the spec is silent", recognising a
 * refund by web whose answer was lost). The platform picks cancel or refund, so either kind
 * of request event is looked for: one with our amount and our `clientDateTime` (the same on
 * every attempt) is ours; the first later event of the same kind with a `result` says how
 * it ended. Events the agent does not know are passed over.
 */

export interface ByWebSeen {
  kind: 'cancel' | 'refund';
  outcome: 'accepted' | 'refused' | 'unknown';
}

const ACCEPTED = /accept|success|approv|^ok$|done|cancel|revers|void|refund/i;

/** The request event's kind and amount: `cancelAmount` for a cancel, `refundAmount` for a refund. */
function requestOf(
  event: Record<string, unknown>,
  currency: string,
): { kind: 'cancel' | 'refund'; amount: number | undefined } | undefined {
  for (const [field, kind] of [
    ['cancelAmount', 'cancel'],
    ['refundAmount', 'refund'],
  ] as const) {
    const money = asObject(event[field]);
    // A result event may repeat the amount: only an event without a result is a request.
    if (money !== undefined && text(event.result) === undefined) return { kind, amount: readAmount(money, currency) };
  }
  return undefined;
}

/** Our cancel or refund by web in the sale's history, and what its result says; undefined when the history does not show it. */
export function ourByWebIn(
  record: PlatformRecord,
  op: Pick<JournalRow, 'amount' | 'currency' | 'clientDateTime'>,
): ByWebSeen | undefined {
  const events = recordEvents(record);
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as Record<string, unknown>;
    const request = requestOf(e, op.currency);
    if (
      request === undefined ||
      request.amount !== op.amount ||
      !sameInstant(text(e.clientDateTime), op.clientDateTime)
    )
      continue;
    const sameKind = request.kind === 'cancel' ? /cancel/i : /refund/i;
    for (let j = i + 1; j < events.length; j++) {
      const next = events[j] as Record<string, unknown>;
      // The next request of either kind: ours has no result before it.
      if (requestOf(next, op.currency) !== undefined) break;
      const result = text(next.result);
      if (result === undefined || !sameKind.test(text(next.eventType) ?? '')) continue;
      return {
        kind: request.kind,
        outcome: REFUSED_RESULT.test(result) ? 'refused' : ACCEPTED.test(result) ? 'accepted' : 'unknown',
      };
    }
    return { kind: request.kind, outcome: 'unknown' };
  }
  return undefined;
}
