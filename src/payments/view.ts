import type { TransactionView } from './api.js';
import { outcomeBeingChecked } from './checking.js';
import type { JournalRow } from './journal/index.js';
import { publicEvent } from './records.js';

/** A journal row as people and programs see it: never card data beyond the masked PAN. */
export function toView(row: JournalRow): TransactionView {
  const view: TransactionView = {
    clientTransactionId: row.clientTransactionId,
    kind: row.kind,
    amount: row.amount,
    currency: row.currency,
    state: row.state,
    offline: row.offline,
    capturedAmount: row.capturedAmount,
    refundedAmount: row.refundedAmount,
    cancelledAmount: row.cancelledAmount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    events: row.events.map(publicEvent),
  };
  if (row.serverTransactionId !== undefined) view.serverTransactionId = row.serverTransactionId;
  if (row.method !== undefined) view.method = row.method;
  if (row.scenario !== undefined) view.scenario = row.scenario;
  if (row.merchantId !== undefined) view.merchantId = row.merchantId;
  if (row.platformStatus !== undefined) view.platformStatus = row.platformStatus;
  if (row.relatedClientTransactionId !== undefined) view.relatedClientTransactionId = row.relatedClientTransactionId;
  if (row.maskedPan !== undefined) view.maskedPan = row.maskedPan;
  if (row.scheme !== undefined) view.scheme = row.scheme;
  if (row.entryMode !== undefined) view.entryMode = row.entryMode;
  if (row.message !== undefined) view.message = row.message;
  if (row.origin !== undefined) view.origin = row.origin;
  if (row.operator !== undefined) view.operator = row.operator;
  if (row.reference !== undefined) view.reference = row.reference;
  if (row.requestId !== undefined) view.requestId = row.requestId;
  if (row.kind !== 'sale' && row.attempts > 0) view.attempts = row.attempts;
  if (outcomeBeingChecked(row)) view.outcomeBeingChecked = true;
  if (row.qrCode !== undefined && row.state === 'awaiting_customer') {
    view.qr = { codeValue: row.qrCode, ...(row.qrExpireTime !== undefined ? { expireTime: row.qrExpireTime } : {}) };
  }
  return view;
}
