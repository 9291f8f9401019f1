import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { isUnknownStatus, publicEvent, type PlatformRecord } from './records.js';
import { salePatchFromRecord } from './sale-record-patch.js';

export interface Adopted {
  row: JournalRow;
  newEvents: Array<Record<string, unknown>>;
  /** The sale is final (nothing more to wait for from the platform). */
  final: boolean;
  /** The platform's status is a word the agent does not know: the sale needs attention and is followed until it says more. */
  unknownStatus: boolean;
  /** The row became `awaiting_customer` with a platform transaction (a QR or a wallet confirmation). */
  startedWaiting: boolean;
}

/**
 * Takes the platform's record of a sale as the truth (docs/architecture.md, "Flows": adopt
 * its state): writes the change `salePatchFromRecord` derives and tells the bus.
 */
export function adoptSaleRecord(
  ctx: PaymentContext,
  row: JournalRow,
  record: PlatformRecord,
  opts: { quiet?: boolean } = {},
): Adopted {
  const { patch, newEvents: fresh, state, statusClass, startedWaiting } = salePatchFromRecord(row, record);
  let saved = row;
  if (Object.keys(patch).length > 0) {
    // Each platform event once on the bus, in order (the relay publishes what it applies itself).
    saved = ctx.save(row.clientTransactionId, patch, {
      platformEvents: fresh.map(publicEvent),
      ...(opts.quiet === true ? { quiet: true } : {}),
    });
  }
  const unknownStatus = isFollowedUnknown(saved);
  // A status the agent does not know is not an outcome: the relay follows the sale until the
  // platform says a word it knows (docs/platform-contract.md, "Tolerance of answers", status values).
  if (unknownStatus && !isFollowedUnknown(row)) ctx.notifyTracking(saved);
  return {
    row: saved,
    newEvents: fresh,
    final: state !== undefined && state !== 'awaiting_customer' && statusClass !== 'pending' && !unknownStatus,
    unknownStatus,
    startedWaiting,
  };
}

/** A sale set aside as needing attention because its platform status is a word the agent does not know. */
export function isFollowedUnknown(row: JournalRow): boolean {
  return row.kind === 'sale' && row.state === 'needs_attention' && !row.offline && isUnknownStatus(row.platformStatus);
}
