import { randomUUID } from 'node:crypto';
import type { SimTransaction } from './types.js';

/** A payment the terminal QR call made: only that call carries an order, kept on its request event. */
export function madeByQrCall(tx: SimTransaction): boolean {
  const first = tx.record.events[0];
  return tx.record.transactionType === 'Payment' && first !== undefined && first.order !== undefined;
}

const clientKey = (merchantId: string, clientId: string): string => `${merchantId}\u0000${clientId}`;

/** Transactions by server id and by (merchant, client id): client ids are scoped to the merchant. */
export class TransactionStore {
  private readonly byServerId = new Map<string, SimTransaction>();
  private readonly byClientId = new Map<string, SimTransaction>();

  newServerId(): string {
    return randomUUID();
  }

  add(tx: SimTransaction): void {
    this.byServerId.set(tx.record.serverTransactionId, tx);
    this.byClientId.set(clientKey(tx.merchant.merchantId, tx.record.clientTransactionId), tx);
  }

  byClient(merchantId: string, clientId: string): SimTransaction | undefined {
    return this.byClientId.get(clientKey(merchantId, clientId));
  }

  /**
   * The path's transactionId is the client or the server identifier (docs/platform-contract.md,
   * "Endpoints"). `qrClientIds: false` (the strict profile): the client id a terminal QR call
   * gave is the QR service's, which the payment API does not know; such a payment is found by
   * its server id only (docs/demo-platform.md, "Demo platform").
   */
  find(merchantId: string, id: string, opts: { qrClientIds?: boolean } = {}): SimTransaction | undefined {
    const byServer = this.byServerId.get(id);
    if (byServer !== undefined && byServer.merchant.merchantId === merchantId) return byServer;
    const byClient = this.byClient(merchantId, id);
    if (byClient !== undefined && opts.qrClientIds === false && madeByQrCall(byClient)) return undefined;
    return byClient;
  }

  /** For control calls, which have no merchant: server id first, then any merchant's client id. */
  findAny(id: string): SimTransaction | undefined {
    const byServer = this.byServerId.get(id);
    if (byServer !== undefined) return byServer;
    for (const tx of this.byServerId.values()) if (tx.record.clientTransactionId === id) return tx;
    return undefined;
  }

  all(): IterableIterator<SimTransaction> {
    return this.byServerId.values();
  }
}
