/**
 * Every money movement of the demo platform, append-only, so tests can prove that
 * nothing was charged twice. `effect` is the signed change of what the customer is
 * charged: an authorization holds money (+), a capture keeps it (0), the uncaptured rest
 * of a partial capture is released (-), cancels and refunds give it back (-).
 */
export type LedgerKind = 'authorization' | 'sale' | 'capture' | 'release' | 'cancel' | 'reversal' | 'refund';

export interface LedgerEntry {
  seq: number;
  kind: LedgerKind;
  merchantId: string;
  serverTransactionId: string;
  clientTransactionId: string;
  /** The sale the money belongs to (the transaction itself for authorization/sale/capture). */
  paymentServerTransactionId: string;
  paymentClientTransactionId: string;
  amount: number;
  currency: string;
  effect: number;
  /** Platform time, ISO 8601 UTC. */
  time: string;
}

export interface NetCharge {
  merchantId: string;
  clientTransactionId: string;
  serverTransactionId: string;
  currency: string;
  netCharged: number;
}

export class Ledger {
  private readonly entries: LedgerEntry[] = [];

  record(entry: Omit<LedgerEntry, 'seq'>): void {
    this.entries.push({ seq: this.entries.length + 1, ...entry });
  }

  /** Entries read back from the ledger file, in order (ledger-state.ts). */
  restore(entries: readonly LedgerEntry[]): void {
    for (const e of entries) this.entries.push({ ...e, seq: this.entries.length + 1 });
  }

  list(): LedgerEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  /**
   * Net amount charged for the sale with this client transaction id (0 when nothing
   * moved); with several merchants using the same client id, pass the merchant.
   */
  netCharged(clientTransactionId: string, merchantId?: string): number {
    let sum = 0;
    for (const e of this.entries) {
      if (e.paymentClientTransactionId !== clientTransactionId) continue;
      if (merchantId !== undefined && e.merchantId !== merchantId) continue;
      sum += e.effect;
    }
    return sum;
  }

  /** Net charged per sale, in the order the sales first moved money. */
  totals(): NetCharge[] {
    const bySale = new Map<string, NetCharge>();
    for (const e of this.entries) {
      const current = bySale.get(e.paymentServerTransactionId);
      if (current === undefined) {
        bySale.set(e.paymentServerTransactionId, {
          merchantId: e.merchantId,
          clientTransactionId: e.paymentClientTransactionId,
          serverTransactionId: e.paymentServerTransactionId,
          currency: e.currency,
          netCharged: e.effect,
        });
      } else current.netCharged += e.effect;
    }
    return [...bySale.values()];
  }
}
