import { AgentError, ErrorCodes } from '../core/index.js';
import type { SaleMethod } from './api.js';
import type { JournalRow } from './journal/index.js';
import type { PaymentContext } from './payment-context.js';
import {
  classifyStatus,
  readAmount,
  recordEvents,
  recordServerId,
  recordStatus,
  type PlatformRecord,
} from './records.js';
import { salePatchFromRecord } from './sale-record-patch.js';

/** The marker staff see on a web order's row (docs/platform-contract.md, "Decisions where the spec is silent", refund by web). */
export const WEB_ORDER_MESSAGE = 'web order, not taken at this terminal: journaled for its refund by web';

const SALE_AMOUNTS = ['authorizationAmount', 'paymentAmount'];
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The sale's amount from its request event (`authorizationAmount`, or a QR payment's `paymentAmount`), in either amount form. */
function saleAmount(record: PlatformRecord): { amount: number; currency: string } | undefined {
  for (const event of recordEvents(record)) {
    for (const field of SALE_AMOUNTS) {
      const v = event[field];
      const currency = typeof v === 'object' && v !== null ? text((v as { currency?: unknown }).currency) : undefined;
      const amount = readAmount(v, currency);
      if (amount !== undefined && amount > 0 && currency !== undefined)
        return { amount, currency: currency.toUpperCase() };
    }
  }
  return undefined;
}

function methodOf(record: PlatformRecord): SaleMethod | undefined {
  for (const event of recordEvents(record)) {
    const instrument = event.instrument;
    const type =
      typeof instrument === 'object' && instrument !== null
        ? text((instrument as { instrumentType?: unknown }).instrumentType)
        : undefined;
    if (type === undefined) continue;
    const t = type.toLowerCase();
    if (t === 'card') return 'card';
    if (t === 'walleta') return 'walletA';
    if (t === 'walletb') return 'walletB';
  }
  return undefined;
}

/** The sale's own clientDateTime (its windows run from it), from its request event; else now. */
function saleTime(record: PlatformRecord, now: number): string {
  for (const event of recordEvents(record)) {
    const t = text(event.clientDateTime);
    if (t !== undefined && Number.isFinite(Date.parse(t))) return new Date(Date.parse(t)).toISOString();
  }
  return new Date(now).toISOString();
}

const refuse = (message: string): AgentError => new AgentError(ErrorCodes.PAYMENT_STATE, message);

/**
 * A transaction the terminal did not make (a web shop's order), named for a refund by web:
 * its platform record, read by the id given, becomes a journal row of its own, a sale with
 * `origin: 'web'`, before anything is sent, so the money given back has a row to be
 * recorded against and an unknown outcome is looked up like any other
 * (docs/platform-contract.md, "Decisions where the spec is silent", refund by web). Only a
 * charged payment is taken; its amounts, status and events are the record's. The row keeps
 * the platform's client id (else the id given), so later calls name it as the platform does,
 * and the merchant it was looked up with, so they go with that merchant's token.
 */
export function journalWebOrder(
  ctx: PaymentContext,
  askedId: string,
  record: PlatformRecord,
  merchantId?: string,
): JournalRow {
  const type = text(record.transactionType)?.trim().toLowerCase();
  if (type !== undefined && type !== 'payment')
    throw refuse(
      `transaction ${askedId} is a ${text(record.transactionType) ?? ''} at the platform, not a payment: nothing to give back by web`,
    );
  const status = recordStatus(record);
  if (classifyStatus(status) !== 'charged')
    throw refuse(
      `the web order ${askedId} has platform status "${status ?? ''}": nothing is charged to give back by web`,
    );
  const money = saleAmount(record);
  if (money === undefined)
    throw refuse(
      `the platform's record of ${askedId} shows no amount this terminal can read: it cannot be given back by web from here`,
    );
  const clientTransactionId = text(record.clientTransactionId) ?? askedId;
  const method = methodOf(record);
  const serverId = recordServerId(record);
  // Inserted and adopted in one transaction; announced once, as adopted.
  const saved = ctx.rows.write(() => {
    const row = ctx.insert({
      clientTransactionId,
      kind: 'sale',
      amount: money.amount,
      currency: money.currency,
      state: 'approved',
      clientDateTime: saleTime(record, ctx.clock.wall()),
      origin: 'web',
      // The merchant whose token found it: its refund by web goes with the same token (ctx.callOptions).
      ...(merchantId !== undefined ? { merchantId } : {}),
      ...(method !== undefined ? { method } : {}),
      ...(serverId !== undefined ? { serverTransactionId: serverId } : {}),
    });
    const { patch } = salePatchFromRecord(row, record);
    return ctx.save(clientTransactionId, { ...patch, state: 'approved', message: WEB_ORDER_MESSAGE });
  });
  ctx.log.info(
    { clientTransactionId, serverTransactionId: serverId, amount: money.amount, currency: money.currency },
    'web order journaled for a refund by web',
  );
  return saved;
}

/** A web order is given back by web only: a capture, cancel or refund from the counter is the terminal's own sales' (and a capture is the web shop's). */
export function refuseWebOrder(sale: JournalRow, op: 'cancelled' | 'refunded' | 'captured'): void {
  if (sale.origin === 'web')
    throw refuse(
      `${sale.clientTransactionId} is a web order, not a sale of this terminal: it cannot be ${op} here, only given back by web (refund by web)`,
    );
}
