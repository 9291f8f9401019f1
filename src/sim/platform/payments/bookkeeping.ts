import { serverTime } from './dates.js';
import type { Ledger, LedgerKind } from './ledger.js';
import type { SimTransaction } from './types.js';

/*
 * What a transaction leaves behind: its events and its money movements. Kept apart from
 * transaction.ts, which reads the wallet provider, because the wallet provider records
 * outcomes with these two (no import cycle).
 */

/** Appends an event stamped with the platform's time in its server format, MM/DD/YYYY HH:mm:ss (docs/platform-contract.md, "Tolerance of answers"). */
export function addEvent(tx: SimTransaction, now: number, eventType: string, fields: Record<string, unknown>): void {
  tx.record.events.push({ eventType, serverProcessingDateTime: serverTime(now), ...fields });
}

/** Books a money movement of `tx` (or of the payment it acts upon) in the ledger. */
export function moveMoney(
  ledger: Ledger,
  tx: SimTransaction,
  now: number,
  kind: LedgerKind,
  amount: number,
  effect: number,
): void {
  const payment = tx.related ?? tx;
  ledger.record({
    kind,
    merchantId: tx.merchant.merchantId,
    serverTransactionId: tx.record.serverTransactionId,
    clientTransactionId: tx.record.clientTransactionId,
    paymentServerTransactionId: payment.record.serverTransactionId,
    paymentClientTransactionId: payment.record.clientTransactionId,
    amount,
    currency: tx.amount.currency,
    effect,
    time: new Date(now).toISOString(),
  });
}
