import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINAL_STATES } from '../../src/payments/journal/index.js';
import {
  ReportService,
  endOfDayCsv,
  endOfDayText,
  receiptText,
  type ReceiptData,
} from '../../src/payments/receipts/index.js';
import type { CardResult } from '../../src/devices/api.js';
import { errorOf } from '../helpers/agent-error.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { MERCHANTS } from './receipt-rows.js';

/**
 * Receipts and the end-of-day report of sales, refunds, cancels and captures made for real
 * against the demo platform (both profiles), read from the journal they left. Then the
 * bytes of every answer are searched for card data: the reader's encrypted data, KSNs,
 * expiry, PIN block and every digit of the PAN before its last four.
 */

const fixture = useDemoPlatform();

const CARD: CardResult = {
  outcome: 'ok',
  entryMode: 'ContactChip',
  card: {
    maskedPan: '476173******0135',
    scheme: 'VISA',
    expiry: '3107',
    encryptedData: 'RDR-ENC-5f1e2d3c4b5a69788796a5b4c3d2e1f0',
    ksn: 'FFFF0000AAAA11112222',
  },
  pin: { pinblock: 'C9A8B7C6D5E4F302', ksn: 'FFFF0000BBBB33334444', format: 'ISO-0' },
};
const FORBIDDEN = [
  'RDR-ENC',
  '5f1e2d3c4b5a6978',
  'FFFF0000AAAA11112222',
  'FFFF0000BBBB33334444',
  'C9A8B7C6D5E4F302',
  '3107',
  '476173',
  'ISO-0',
];

function reports(t: Terminal): ReportService {
  return new ReportService({
    journal: t.journal,
    sources: { merchants: () => MERCHANTS, terminalId: () => 'TA-0001' },
    timeZone: 'Europe/Berlin',
  });
}

/** Every receipt of every row, both copies, JSON and text at both widths. */
function everyReceipt(t: Terminal): { data: ReceiptData[]; bytes: string } {
  const r = reports(t);
  const data: ReceiptData[] = [];
  let bytes = '';
  for (const row of t.journal.list()) {
    if (!FINAL_STATES.has(row.state)) continue;
    for (const copy of ['customer', 'merchant'] as const) {
      const receipt = r.receipt(row.clientTransactionId, { copy });
      data.push(receipt);
      bytes += JSON.stringify(receipt) + receiptText(receipt, 32) + receiptText(receipt, 48);
    }
  }
  return { data, bytes };
}

function expectNoCardData(bytes: string): void {
  for (const bad of FORBIDDEN) expect(bytes, bad).not.toContain(bad);
  // No run of 13 or more digits (a PAN) anywhere.
  expect(bytes).not.toMatch(/[0-9]{13,}/);
}

describe('receipts and end of day of real payments', () => {
  it('a card sale, its refund, a sale the agent captured, a declined sale: receipts for each, totals for the day', async () => {
    const t = await fixture.startTerminal({ config: { payments: { captureMode: 'immediate' } } });
    t.devices.reader.next(CARD, CARD, CARD);
    const sale = await (await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR' })).done;
    expect(sale.state, sale.message).toBe('approved');
    const books = await (
      await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    const declined = await (await t.service.startSale({ method: 'card', amount: 1_051, currency: 'EUR' })).done;
    expect(declined.state).toBe('declined');
    const refund = await fixture.final(t, await t.service.refund(sale.clientTransactionId, { amount: 250 }));
    expect(refund.state).toBe('approved');

    const r = reports(t);
    // By the client or the server id.
    const customer = r.receipt(sale.serverTransactionId ?? '', { copy: 'customer' });
    expect(customer).toMatchObject({
      kind: 'sale',
      title: 'SALE',
      merchant: { name: 'Demo Coffee', id: 'm-1001' },
      terminalId: 'TA-0001',
      amount: { minor: 1_000, currency: 'EUR', minorDigits: 2, text: '10.00' },
      card: { scheme: 'VISA', last4: '0135', masked: '**** 0135', entryMode: 'ContactChip', entryModeText: 'Chip' },
      clientTransactionId: sale.clientTransactionId,
      serverTransactionId: sale.serverTransactionId,
      outcome: { code: 'approved', text: 'APPROVED' },
      merchantNotes: null,
    });
    expect(customer.dateTime.timeZone).toBe('Europe/Berlin');
    expect(Date.parse(customer.dateTime.local)).toBe(Math.floor(Date.parse(customer.dateTime.utc) / 1000) * 1000);
    const refundReceipt = r.receipt(refund.clientTransactionId, { copy: 'merchant' });
    expect(refundReceipt).toMatchObject({
      kind: 'refund',
      title: 'REFUND',
      amount: { minor: 250 },
      card: { last4: '0135', scheme: 'VISA' },
      originalSale: {
        clientTransactionId: sale.clientTransactionId,
        serverTransactionId: sale.serverTransactionId,
        amount: { minor: 1_000 },
      },
      outcome: { text: 'REFUNDED' },
      merchantNotes: { message: 'refunded 2.50 EUR' },
    });
    expect(r.receipt(books.clientTransactionId).merchant).toEqual({ name: 'Demo Books', id: 'm-1002' });
    const capture = t.journal.list().find((row) => row.kind === 'capture');
    expect(capture).toBeDefined();
    expect(r.receipt(capture?.clientTransactionId ?? '')).toMatchObject({
      title: 'CAPTURE',
      outcome: { text: 'CAPTURED' },
      originalSale: { clientTransactionId: books.clientTransactionId },
    });
    expect(r.receipt(declined.clientTransactionId)).toMatchObject({
      outcome: { code: 'declined', text: 'DECLINED', detail: 'Nothing was charged' },
    });

    const all = everyReceipt(t);
    expect(all.data.length).toBe(2 * 5);
    const day = r.endOfDay();
    expect(day.totals).toEqual([
      expect.objectContaining({
        currency: 'EUR',
        sales: { count: 2, amount: 4_000 },
        refunds: { count: 1, amount: 250 },
        captures: { count: 1, amount: 3_000 },
        notCompleted: { count: 1, amount: 1_051 },
        net: 3_750,
      }),
    ]);
    expectNoCardData(
      all.bytes + JSON.stringify(day) + endOfDayCsv(day) + endOfDayText(day, 32) + endOfDayText(day, 48),
    );
  });

  it('a cancel of an authorization: the cancel and the cancelled sale each have a receipt; the day nets to zero', async () => {
    const t = await fixture.startTerminal({
      config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } },
    });
    t.devices.reader.next(CARD);
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    const cancel = await fixture.final(t, await t.service.cancel(sale.clientTransactionId, { approvalCode: '4711' }));
    expect(cancel.state).toBe('approved');
    const r = reports(t);
    expect(r.receipt(cancel.clientTransactionId)).toMatchObject({
      title: 'CANCELLATION',
      amount: { minor: 2_000 },
      outcome: { text: 'CANCELLED', detail: 'The amount is not charged' },
      card: { last4: '0135' },
    });
    expect(r.receipt(sale.clientTransactionId)).toMatchObject({
      outcome: { state: 'cancelled', code: 'cancelled', detail: 'Nothing is charged' },
    });
    const day = r.endOfDay();
    expect(day.totals[0]).toMatchObject({
      sales: { count: 1, amount: 2_000 },
      cancels: { count: 1, amount: 2_000 },
      net: 0,
    });
    expectNoCardData(everyReceipt(t).bytes + endOfDayCsv(day));
  });

  it('an offline sale has its receipt while the journal still holds its card data; a sale waiting for its card has none (409)', async () => {
    const t = await fixture.startTerminal();
    t.devices.reader.next('wait-abort');
    const waiting = await t.service.startSale({ method: 'card', amount: 500, currency: 'EUR' });
    const r = reports(t);
    const err = errorOf(() => r.receipt(waiting.clientTransactionId));
    expect(err.code).toBe('PAYMENT_STATE');
    expect(err.message).toMatch(/is awaiting_customer, not final yet/);
    await t.service.abortSale(waiting.clientTransactionId);
    expect(r.receipt(waiting.clientTransactionId).outcome).toMatchObject({
      code: 'cancelled',
      detail: 'Nothing is charged',
    });
    expect(errorOf(() => r.receipt('no-such-id')).code).toBe('PAYMENT_NOT_FOUND');

    // A row stored offline, as the offline hook leaves it: card data kept (no PIN), receipt printable.
    t.journal.insert({
      clientTransactionId: 'offline-1',
      kind: 'sale',
      amount: 700,
      currency: 'EUR',
      state: 'offline_stored',
      offline: true,
      clientDateTime: new Date().toISOString(),
      method: 'card',
      entryMode: 'ContactlessChip',
      maskedPan: CARD.outcome === 'ok' ? CARD.card.maskedPan : '',
      scheme: 'VISA',
      cardSecret: {
        encryptedData: 'RDR-ENC-5f1e2d3c4b5a69788796a5b4c3d2e1f0',
        ksn: 'FFFF0000AAAA11112222',
        expiry: '3107',
      },
    });
    const offline = r.receipt('offline-1');
    expect(offline.outcome).toMatchObject({ code: 'approved_offline', text: 'APPROVED' });
    expect(r.endOfDay().totals[0]?.offlinePending).toEqual({ count: 1, amount: 700 });
    const bytes =
      JSON.stringify(offline) +
      receiptText(offline, 32) +
      receiptText(r.receipt('offline-1', { copy: 'merchant' }), 48);
    expectNoCardData(bytes);
    // The journal file itself still holds it (the upload needs it): the receipt never read it.
    const files = readdirSync(t.dataDir)
      .map((f) => readFileSync(join(t.dataDir, f)).toString('latin1'))
      .join('');
    expect(files).toContain('RDR-ENC-5f1e2d3c4b5a69788796a5b4c3d2e1f0');
  });
});
