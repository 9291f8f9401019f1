import { classifyStatus, recordEvents, recordStatus, type PlatformRecord } from './records.js';

/**
 * When a refund or cancel is final, and how it ended (docs/platform-contract.md,
 * "Decisions where the spec is silent", refund or cancel answered pending or `Accepted`).
 * A refund is asynchronous and answered `Accepted` before it is complete; each operation's
 * outcome is carried by the `result` of its result event (walletARefundResult,
 * walletBCancelResult, ...), so the status word alone never says it succeeded:
 *
 * 1. the operation's result event with a `result` decides: a success word is done, a
 *    refusal declined, a failure failed; a word the agent does not know stays pending
 *    (followed, the amount held) and is shown as it came;
 * 2. without it, a status that says the operation did not happen is final (refused,
 *    failed, expired; for a refund also cancelled);
 * 3. without it, a record showing the operation's request event is pending whatever its
 *    status word (`Accepted`, `cancelled`, `Initialized`): the result is still to come;
 * 4. a record with no event of the operation at all (a platform that sends none) is judged
 *    by its status: a cancel answered `cancelled` is done; anything else stays pending.
 */

export type OperationOutcome = 'done' | 'pending' | 'declined' | 'failed';

export interface OperationVerdict {
  outcome: OperationOutcome;
  /** The result event's `result`, when the record has one. */
  result?: string;
  /** The result event's `resultMessage`, when it has a non-empty one. */
  resultMessage?: string;
}

const RESULT_EVENT: Record<'refund' | 'cancel', RegExp> = { refund: /refund\w*result/i, cancel: /cancel\w*result/i };
const REQUEST_EVENT: Record<'refund' | 'cancel', RegExp> = { refund: /refund\w*request/i, cancel: /cancel\w*request/i };

const SUCCEEDED = new Set([
  'accepted',
  'success',
  'successful',
  'succeeded',
  'approved',
  'ok',
  'done',
  'completed',
  'refunded',
  'cancelled',
  'canceled',
  'reversed',
  'voided',
]);
const REFUSED = new Set(['refused', 'declined', 'rejected', 'denied']);
const FAILED = new Set(['failed', 'failure', 'error', 'expired']);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function eventType(e: Record<string, unknown>): string {
  return text(e.eventType) ?? '';
}

/** The verdict on a refund or cancel from its own record (the answer, or a later status call). */
export function operationVerdict(kind: 'refund' | 'cancel', record: PlatformRecord): OperationVerdict {
  const events = recordEvents(record);
  // The last result event of this operation that carries a result (a null or empty result is not one yet).
  const resultEvent = events
    .filter((e) => RESULT_EVENT[kind].test(eventType(e)) && text(e.result) !== undefined)
    .at(-1);
  if (resultEvent !== undefined) {
    const result = text(resultEvent.result) as string;
    const message = text(resultEvent.resultMessage);
    const word = result.trim().toLowerCase();
    const outcome: OperationOutcome = SUCCEEDED.has(word)
      ? 'done'
      : REFUSED.has(word)
        ? 'declined'
        : FAILED.has(word)
          ? 'failed'
          : 'pending';
    return { outcome, result, ...(message !== undefined ? { resultMessage: message } : {}) };
  }
  const cls = classifyStatus(recordStatus(record));
  if (cls === 'refused') return { outcome: 'declined' };
  if (cls === 'failed' || cls === 'expired' || (kind === 'refund' && cls === 'cancelled')) return { outcome: 'failed' };
  const requested = events.some((e) => REQUEST_EVENT[kind].test(eventType(e)));
  if (!requested && kind === 'cancel' && cls === 'cancelled') return { outcome: 'done' };
  return { outcome: 'pending' };
}
