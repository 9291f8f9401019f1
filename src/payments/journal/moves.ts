import type { OperationKind, TransactionState } from '../api.js';
import { AgentError, ErrorCodes, type Logger } from '../../core/index.js';
import { FINAL_STATES, type JournalPatch, type JournalRow } from './types.js';

/**
 * Which state changes the journal records (docs/journal.md, "Journal", state moves).
 * States are moved by many flows (sale, operations, reversal, relay, recovery, offline
 * upload), several of which read a row, wait for the platform and then write: a late write
 * must not turn an outcome the journal holds into another one. So:
 *
 * - a row that is not final (and a row set aside as `needs_attention`, which later
 *   resolution settles) may move to any state;
 * - a final row moves to another final state only on the platform's word (the change
 *   carries the platform's status: its record is the truth), never on a local decision
 *   (a QR expiry, a timeout, a failed flow) that raced with the outcome;
 * - a final row never goes back to a state that is not final (a stale "pending" answer, a
 *   request about to be sent again), except the two flows that reopen a `failed` row:
 *   an operation retried with its own client id goes `in_flight` again, and a sale counted
 *   as not done that landed at the platform after all is reversed (`reversing`).
 *
 * `platformSaid`: the change carries a status the platform reported.
 */
export function moveAllowed(
  kind: OperationKind,
  from: TransactionState,
  to: TransactionState,
  platformSaid: boolean,
): boolean {
  if (from === to || from === 'needs_attention' || !FINAL_STATES.has(from)) return true;
  if (FINAL_STATES.has(to)) return platformSaid;
  return from === 'failed' && (kind === 'sale' ? to === 'reversing' : to === 'in_flight');
}

/**
 * The patch as the journal records it (docs/journal.md, "Journal", state moves): a state
 * move the rules refuse is logged and left out with the message that describes it, the rest
 * (events, platform status, amounts) is written; a refused move to `in_flight` throws
 * instead, so the request it would announce never leaves. `row`: the row's kind and state
 * now (undefined when the patch moves no state or the row is unknown).
 */
export function allowedPatch(
  row: Pick<JournalRow, 'kind' | 'state'> | undefined,
  clientTransactionId: string,
  patch: JournalPatch,
  log?: Pick<Logger, 'warn'>,
): JournalPatch {
  const to = patch.state;
  if (typeof to !== 'string' || row === undefined) return patch;
  if (moveAllowed(row.kind, row.state, to, typeof patch.platformStatus === 'string')) return patch;
  log?.warn(
    { clientTransactionId, kind: row.kind, from: row.state, to },
    'journal refused a state move: the row keeps its state',
  );
  if (to === 'in_flight') {
    throw new AgentError(
      ErrorCodes.PAYMENT_STATE,
      `transaction ${clientTransactionId} is ${row.state}: it is not sent again`,
      {
        details: { clientTransactionId, state: row.state },
      },
    );
  }
  const { state: _state, message: _message, ...rest } = patch;
  return rest;
}
