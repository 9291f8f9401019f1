import type { TransactionState } from './api.js';
import type { JournalPatch, JournalRow } from './journal/index.js';
import { formatAmount } from './money.js';
import {
  capturedOf,
  classifyStatus,
  isCapturedStatus,
  isUnknownStatus,
  newEvents,
  publicEvent,
  qrOf,
  recordEvents,
  recordServerId,
  recordStatus,
  resultMessage,
  saleStateFor,
  type PlatformRecord,
  type StatusClass,
  unknownStatusMessage,
} from './records.js';

/**
 * Where a sale's platform record came from:
 * - `platform`: an online answer, a status lookup, the event relay (the record is the
 *   truth, docs/architecture.md "Flows"; a pending status means the customer is still paying);
 * - `offline_upload`: the answer to (or the lookup of) an offline sale's upload
 *   (docs/offline.md "Offline queue"): the customer left long ago, so a status that is
 *   not final is something for staff to check, and the row stays marked as taken offline.
 */
export type RecordSource = 'platform' | 'offline_upload';

export interface SaleRecordPatch {
  /** The change of the sale's journal row (empty when the record brings nothing new). */
  patch: JournalPatch;
  /** Events of the record the row did not have, in the platform's order. */
  newEvents: Array<Record<string, unknown>>;
  /** The state the record gives the sale; undefined when the row keeps its state. */
  state: TransactionState | undefined;
  statusClass: StatusClass;
  /** The row becomes `awaiting_customer` with a platform transaction (a QR or a wallet confirmation). */
  startedWaiting: boolean;
}

export type UploadSettlement = 'uploaded' | 'declined_after_upload';

/**
 * What an offline sale's upload came to, by the platform's record: refused, failed or
 * expired means the money was not collected (declined after upload, with the reason
 * staff are told); anything else means the platform has the sale.
 */
export function uploadSettlement(record: PlatformRecord): { settledAs: UploadSettlement; declinedMessage?: string } {
  const cls = classifyStatus(recordStatus(record));
  if (cls !== 'refused' && cls !== 'failed' && cls !== 'expired') return { settledAs: 'uploaded' };
  return {
    settledAs: 'declined_after_upload',
    declinedMessage: `declined after upload: ${resultMessage(record) ?? recordStatus(record)}`,
  };
}

const isCardMethod = (row: JournalRow): boolean =>
  row.method === 'card' || row.method === 'manual' || row.method === 'moto';

/**
 * The one translation of a platform record of a sale into a journal change (pure: reads
 * `row` and `record`, writes nothing): status, server id, new events, captured and
 * cancelled amounts, the QR while pending, and the message staff see. A sale being
 * reversed keeps its state: the reversal decides.
 */
export function salePatchFromRecord(
  row: JournalRow,
  record: PlatformRecord,
  source: RecordSource = 'platform',
): SaleRecordPatch {
  const upload = source === 'offline_upload';
  const status = recordStatus(record);
  const incoming = upload ? recordEvents(record).map(publicEvent) : recordEvents(record);
  const fresh = newEvents(row.events, incoming);
  const patch: JournalPatch = {};
  if (fresh.length > 0) patch.events = [...row.events, ...fresh];
  const serverId = recordServerId(record);
  if (serverId !== undefined && (upload || row.serverTransactionId === undefined)) patch.serverTransactionId = serverId;
  if (status !== undefined) patch.platformStatus = status;
  if (upload) patch.offline = true;

  const cls = classifyStatus(status);
  let state: TransactionState | undefined = saleStateFor(status);
  let startedWaiting = false;
  if (cls === 'pending' && upload) {
    state = 'needs_attention';
  } else if (cls === 'pending' && row.state === 'pending') {
    // A QR that expired with the payment still pending: its outcome is being checked
    // (qr-expiry.ts); a pending answer changes nothing, the QR is not shown again.
    state = undefined;
  } else if (cls === 'pending') {
    state = 'awaiting_customer';
    const qr = qrOf(record);
    if (qr !== undefined && row.qrCode === undefined) {
      patch.qrCode = qr.codeValue;
      if (qr.expireTime !== undefined) patch.qrExpireTime = qr.expireTime;
    }
    startedWaiting = row.state !== 'awaiting_customer' || row.serverTransactionId === undefined;
  }
  if (cls === 'charged' && isCardMethod(row)) {
    const captured = capturedOf(record, row.currency);
    if (isCapturedStatus(status)) patch.capturedAmount = captured ?? row.amount - row.cancelledAmount;
    else if (captured !== undefined) patch.capturedAmount = captured;
  }
  // An uploaded offline sale's amounts stay as stored: the platform's later operations on it come through the online paths.
  if (cls === 'cancelled' && !upload) patch.cancelledAmount = row.amount - row.refundedAmount;
  if (row.state === 'reversing' || row.state === 'reversed') state = undefined;

  if (state !== undefined) {
    patch.state = state;
    const captured = (patch.capturedAmount ?? row.capturedAmount) > 0;
    const message = upload
      ? uploadMessage(row, record, state, captured)
      : platformMessage(row, record, state, captured);
    if (message !== undefined) patch.message = message;
  }
  return { patch, newEvents: fresh, state, statusClass: cls, startedWaiting };
}

/** `captured`: the sale shows something captured (the status word alone is not relied on: docs/platform-contract.md, "Decisions where the spec is silent", capture body and answer). */
function platformMessage(
  row: JournalRow,
  record: PlatformRecord,
  state: TransactionState,
  captured: boolean,
): string | undefined {
  const status = recordStatus(record);
  const why = resultMessage(record);
  switch (state) {
    case 'approved': {
      const amount = formatAmount(row.amount, row.currency);
      if (isCardMethod(row) && !captured && !isCapturedStatus(status))
        return `approved: ${amount} authorized (not captured yet)`;
      return `approved: ${amount}`;
    }
    case 'declined':
      return why !== undefined ? `declined: ${why}` : 'declined by the platform';
    case 'failed':
      return why ?? `the platform reports ${status ?? 'a failure'}`;
    case 'cancelled':
      return 'cancelled: nothing is charged';
    case 'needs_attention':
      if (isUnknownStatus(status)) return unknownStatusMessage(status);
      return `the platform reports status "${status ?? ''}"; check the transaction with the platform`;
    case 'awaiting_customer':
      return row.scenario === 'ConsumerScan'
        ? 'waiting for the customer to scan and pay'
        : 'waiting for the wallet to confirm';
    default:
      return undefined;
  }
}

function uploadMessage(row: JournalRow, record: PlatformRecord, state: TransactionState, captured: boolean): string {
  const status = recordStatus(record);
  const declined = uploadSettlement(record).declinedMessage;
  if (declined !== undefined) return declined;
  if (state === 'approved') {
    return `approved offline and uploaded: ${formatAmount(row.amount, row.currency)}${captured || isCapturedStatus(status) ? '' : ' authorized (not captured yet)'}`;
  }
  if (state === 'cancelled') return 'uploaded offline sale is cancelled at the platform: nothing is charged';
  return `uploaded offline sale has platform status "${status ?? ''}"; check the transaction with the platform`;
}
