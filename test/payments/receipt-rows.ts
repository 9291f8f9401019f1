import type { JournalRow } from '../../src/payments/journal/index.js';
import type { ReceiptMerchant } from '../../src/payments/receipts/index.js';

/**
 * Journal rows as the payments engine leaves them, for the receipt and end-of-day tests of
 * this folder: a card sale, its operations, and the card data the journal keeps while a row
 * is in flight or stored offline (which no receipt or report may show).
 */

export const CARD_SECRET = {
  encryptedData: 'ENCRYPTED-CARD-DATA-0123456789ABCDEF',
  ksn: 'FFFF9876543210E00001',
  expiry: '2812',
  pinblock: 'PINBLOCK-77AA55',
};
/** The masked PAN as the reader gives it: up to eight leading digits, a mask, the last four. */
export const MASKED_PAN = '53784211****0119';
/** Bytes that must never appear in a receipt or report: card data and the digits before the last four. */
export const FORBIDDEN = ['ENCRYPTED-CARD-DATA', 'FFFF9876543210E00001', '2812', 'PINBLOCK', '53784211', '537842'];

export const MERCHANTS: ReceiptMerchant[] = [
  { merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true },
  { merchantName: 'Demo Books', clientId: 'terminal-app-1002', merchantId: 'm-1002', default: false },
];

export function journalRow(over: Partial<JournalRow> & Pick<JournalRow, 'clientTransactionId'>): JournalRow {
  return {
    kind: 'sale',
    merchantId: undefined,
    amount: 1234,
    currency: 'EUR',
    method: 'card',
    scenario: undefined,
    state: 'approved',
    relatedClientTransactionId: undefined,
    entryMode: 'ContactlessChip',
    maskedPan: MASKED_PAN,
    scheme: 'MASTERCARD',
    platformStatus: 'Captured',
    serverTransactionId: 'srv-7f3a9c21-0b44-4e0e-9d5a-1c2b3d4e5f60',
    events: [],
    qrCode: undefined,
    qrExpireTime: undefined,
    capturedAmount: 1234,
    refundedAmount: 0,
    cancelledAmount: 0,
    attempts: 1,
    clientDateTime: '2026-03-29T01:30:05.250Z',
    cancelReason: undefined,
    offline: false,
    message: undefined,
    cardSecret: undefined,
    createdAt: '2026-03-29T01:30:05.251Z',
    updatedAt: '2026-03-29T01:30:06.000Z',
    operator: 'staff1',
    ...over,
  };
}
