import type { ApiTransaction } from '../../src/ui/shared/wire-types.js';

/** A card sale of 15.00 EUR as the local API answers it (approved, nothing captured), with `over` laid on top. */
export function sampleSale(over: Partial<ApiTransaction> = {}): ApiTransaction {
  return {
    clientTransactionId: 's-1',
    kind: 'sale',
    method: 'card',
    amount: 1500,
    currency: 'EUR',
    amountText: '15.00 EUR',
    state: 'approved',
    offline: false,
    capturedAmount: 0,
    refundedAmount: 0,
    cancelledAmount: 0,
    capturedAmountText: '0.00 EUR',
    refundedAmountText: '0.00 EUR',
    cancelledAmountText: '0.00 EUR',
    createdAt: '2026-11-28T10:00:00.000Z',
    updatedAt: '2026-11-28T10:00:00.000Z',
    eventCount: 0,
    ...over,
  };
}
