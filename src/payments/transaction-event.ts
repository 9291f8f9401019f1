import type { AgentEventMap } from '../events/index.js';
import type { JournalRow } from './journal/index.js';

/** The `transaction.updated` bus event of a journal row (never card data). */
export function transactionUpdated(
  row: JournalRow,
  platformEvent?: Record<string, unknown>,
): AgentEventMap['transaction.updated'] {
  return {
    clientTransactionId: row.clientTransactionId,
    ...(row.serverTransactionId !== undefined ? { serverTransactionId: row.serverTransactionId } : {}),
    kind: row.kind,
    status: row.state,
    amount: row.amount,
    currency: row.currency,
    ...(row.method !== undefined ? { method: row.method } : {}),
    ...(row.message !== undefined ? { message: row.message } : {}),
    ...(row.operator !== undefined ? { operator: row.operator } : {}),
    ...(platformEvent !== undefined ? { platformEvent } : {}),
  };
}
