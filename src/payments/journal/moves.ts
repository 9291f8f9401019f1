import type { OperationKind, TransactionState } from '../api.js';
import { FINAL_STATES } from './types.js';

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
