import type { JournalRow } from './journal/index.js';

/**
 * The words of a sale whose outcome the agent is asking the platform for, and how its view
 * tells such a sale from one sent and waiting for its answer (docs/payments.md, "Unknown
 * outcome: resolution and reversal"; docs/local-api.md, "A sale, step by step", outcomeBeingChecked).
 */

/** A sale whose answer was lost, looked up by its id before anything else (reversal.ts resolveSale). */
export const LOOKUP_MESSAGE =
  'no answer from the platform: the outcome is being looked up; do not repeat the sale, do not hand over the goods yet';

/** What clerk and register read while the platform has not given its word on a QR call sale. */
export const QR_CHECKING_MESSAGE =
  'outcome being checked with the platform: do not repeat the sale (terminal QR call); abort it to ask the platform to cancel it';

/**
 * The sale's outcome is unknown and being asked of the platform: in flight with one of the
 * messages above (written by the agent itself when the check begins), or `pending` (its QR
 * expired, the platform's word awaited: "Wallet QR, consumer scan").
 */
export function outcomeBeingChecked(row: Pick<JournalRow, 'kind' | 'state' | 'message'>): boolean {
  if (row.kind !== 'sale') return false;
  if (row.state === 'pending') return true;
  return row.state === 'in_flight' && (row.message === LOOKUP_MESSAGE || row.message === QR_CHECKING_MESSAGE);
}
