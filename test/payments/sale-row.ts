import type { JournalRow } from '../../src/payments/journal/index.js';

/** A journal row of an approved walletA sale of 10.00 EUR at 2026-03-01 10:00 UTC, with `over` applied. */
export const saleRow = (over: Partial<JournalRow> = {}): JournalRow => ({
  clientTransactionId: 's-1',
  kind: 'sale',
  merchantId: undefined,
  amount: 1_000,
  currency: 'EUR',
  method: 'walletA',
  scenario: 'ConsumerScan',
  state: 'approved',
  relatedClientTransactionId: undefined,
  entryMode: undefined,
  maskedPan: undefined,
  scheme: undefined,
  platformStatus: 'Accepted',
  serverTransactionId: 'srv-1',
  events: [],
  qrCode: undefined,
  qrExpireTime: undefined,
  capturedAmount: 0,
  refundedAmount: 0,
  cancelledAmount: 0,
  attempts: 1,
  clientDateTime: '2026-03-01T10:00:00.000Z',
  cancelReason: undefined,
  offline: false,
  message: undefined,
  cardSecret: undefined,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  ...over,
});

export const SOLD_AT = Date.parse('2026-03-01T10:00:00.000Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
