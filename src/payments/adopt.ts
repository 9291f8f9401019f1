import type { TransactionState } from './api.js';
import type { Engine } from './engine.js';
import type { JournalPatch, JournalRow } from './journal/index.js';
import { formatAmount } from './money.js';
import {
  capturedOf,
  classifyStatus,
  newEvents,
  publicEvent,
  qrOf,
  recordEvents,
  recordServerId,
  recordStatus,
  resultMessage,
  saleStateFor,
  type PlatformRecord,
} from './records.js';

export interface Adopted {
  row: JournalRow;
  newEvents: Array<Record<string, unknown>>;
  /** The sale is final (nothing more to wait for from the platform). */
  final: boolean;
  /** The row became `awaiting_customer` with a platform transaction (a QR or a wallet confirmation). */
  startedWaiting: boolean;
}

const isCardMethod = (row: JournalRow): boolean => row.method === 'card' || row.method === 'manual' || row.method === 'moto';

/**
 * Takes the platform's record of a sale as the truth (DESIGN.md "Unknown outcome": adopt
 * its state): status, server id, new events, captured amount, the QR while pending.
 * A sale being reversed keeps its state: the reversal decides.
 */
export function adoptSaleRecord(e: Engine, row: JournalRow, record: PlatformRecord, opts: { quiet?: boolean } = {}): Adopted {
  const status = recordStatus(record);
  const incoming = recordEvents(record);
  const fresh = newEvents(row.events, incoming);
  const patch: JournalPatch = {};
  if (fresh.length > 0) patch.events = [...row.events, ...fresh];
  const serverId = recordServerId(record);
  if (serverId !== undefined && row.serverTransactionId === undefined) patch.serverTransactionId = serverId;
  if (status !== undefined) patch.platformStatus = status;

  let state: TransactionState | undefined = saleStateFor(status);
  let startedWaiting = false;
  const cls = classifyStatus(status);
  if (cls === 'pending') {
    state = 'awaiting_customer';
    const qr = qrOf(record);
    if (qr !== undefined && row.qrCode === undefined) {
      patch.qrCode = qr.codeValue;
      if (qr.expireTime !== undefined) patch.qrExpireTime = qr.expireTime;
    }
    startedWaiting = row.state !== 'awaiting_customer' || row.serverTransactionId === undefined;
  }
  if (cls === 'charged' && isCardMethod(row)) {
    const captured = capturedOf(record);
    if (/^captured$/i.test(status ?? '')) patch.capturedAmount = captured ?? row.amount - row.cancelledAmount;
    else if (captured !== undefined) patch.capturedAmount = captured;
  }
  if (cls === 'cancelled') patch.cancelledAmount = row.amount - row.refundedAmount;
  if (row.state === 'reversing' || row.state === 'reversed') state = undefined;

  if (state !== undefined) {
    patch.state = state;
    const why = resultMessage(record);
    if (state === 'approved') patch.message = approvedMessage(row, status);
    else if (state === 'declined') patch.message = why !== undefined ? `declined: ${why}` : 'declined by the platform';
    else if (state === 'failed') patch.message = why ?? `the platform reports ${status ?? 'a failure'}`;
    else if (state === 'cancelled') patch.message = 'cancelled: nothing is charged';
    else if (state === 'needs_attention') patch.message = `the platform reports status "${status ?? ''}"; check the transaction with the platform`;
    else if (state === 'awaiting_customer') patch.message = row.scenario === 'ConsumerScan' ? 'waiting for the customer to scan and pay' : 'waiting for the wallet to confirm';
  }
  let saved = row;
  if (Object.keys(patch).length > 0) {
    saved = e.save(row.clientTransactionId, patch, { quiet: true });
    // Each platform event once on the bus, in order (the relay publishes what it applies itself).
    if (opts.quiet !== true) {
      if (fresh.length === 0) e.publish(saved);
      for (const event of fresh) e.publish(saved, publicEvent(event));
    }
  }
  return { row: saved, newEvents: fresh, final: state !== undefined && state !== 'awaiting_customer' && cls !== 'pending', startedWaiting };
}

function approvedMessage(row: JournalRow, status: string | undefined): string {
  const amount = formatAmount(row.amount, row.currency);
  if (isCardMethod(row) && !/^captured$/i.test(status ?? '')) return `approved: ${amount} authorized (not captured yet)`;
  return `approved: ${amount}`;
}
