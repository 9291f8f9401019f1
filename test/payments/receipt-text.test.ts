import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TransactionState } from '../../src/payments/api.js';
import { buildReceipt, receiptText, type PrinterWidth, type ReceiptData } from '../../src/payments/receipts/index.js';
import { center, columns, pair, wrap } from '../../src/payments/receipts/printer-layout.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import { errorOf } from '../helpers/agent-error.js';
import { CARD_SECRET, FORBIDDEN, journalRow, MERCHANTS } from './receipt-rows.js';

/**
 * The receipt's printer text (docs/receipts.md, "Layout"): pure layout from the receipt's
 * data, for 32- and 48-column printers. Golden files under test/payments/golden/ were read
 * line by line when written; UPDATE_GOLDEN=1 rewrites them (then read the diff).
 */

const WIDTHS: PrinterWidth[] = [32, 48];

function golden(name: string, text: string): void {
  const file = new URL(`./golden/${name}`, import.meta.url);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

function receipt(
  row: JournalRow,
  opts: { sale?: JournalRow; copy?: 'customer' | 'merchant'; timeZone?: string } = {},
): ReceiptData {
  return buildReceipt({
    row,
    ...(opts.sale ? { sale: opts.sale } : {}),
    copy: opts.copy ?? 'customer',
    merchants: MERCHANTS,
    terminalId: 'TA-0001',
    timeZone: opts.timeZone ?? 'Europe/Berlin',
  });
}

/** Every line within the width, nothing at a line's end, no control character, one newline at the end. */
function expectPrintable(text: string, width: number): void {
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) {
    expect(line.length, JSON.stringify(line)).toBeLessThanOrEqual(width);
    expect(line).toBe(line.trimEnd());
    // eslint-disable-next-line no-control-regex -- control characters are what this line must not hold
    expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
  }
}

const sale = journalRow({ clientTransactionId: '9b2f4c1e-5d6a-4b7c-8e9f-0a1b2c3d4e5f' });

describe('printer layout helpers', () => {
  it('wraps words, cuts a word longer than the line, and centres', () => {
    expect(wrap('The Very Long Name Of A Coffee Shop', 12)).toEqual(['The Very', 'Long Name Of', 'A Coffee', 'Shop']);
    expect(wrap('abcdefghijklmnopqrstuvwxyz', 10)).toEqual(['abcdefghij', 'klmnopqrst', 'uvwxyz']);
    expect(wrap('a\nb\tc\u0007d', 20)).toEqual(['a b c d']);
    expect(center('SALE', 10)).toEqual(['   SALE']);
    expect(center('APPROVED', 32)).toEqual([`${' '.repeat(12)}APPROVED`]);
  });

  it('puts a label left and its value right, or the value on its own right-aligned lines', () => {
    expect(pair('Terminal', 'TA-0001', 20)).toEqual(['Terminal     TA-0001']);
    // An id longer than a line breaks after a hyphen when it can, every piece right-aligned.
    expect(pair('Client id', '9b2f4c1e-5d6a-4b7c-8e9f-0a1b2c3d4e5f', 32)).toEqual([
      'Client id',
      '9b2f4c1e-5d6a-4b7c-8e9f-'.padStart(32),
      '0a1b2c3d4e5f'.padStart(32),
    ]);
    expect(pair('Id', 'x'.repeat(40), 32)).toEqual(['Id', 'x'.repeat(32), 'x'.repeat(8).padStart(32)]);
    expect(pair('Label', 'exactly-fits-here', 23)).toEqual(['Label exactly-fits-here']);
    expect(pair('Label', 'exactly-fits-heres', 23)).toEqual(['Label', '     exactly-fits-heres']);
  });

  it('aligns figures in columns at the right edge; a long label gets its own line', () => {
    expect(columns('Sales', ['12', '123.45'], [5, 12], 32)).toEqual([
      `${'Sales'.padEnd(14)}${'12'.padStart(5)} ${'123.45'.padStart(12)}`,
    ]);
    expect(columns('Needs attention now', ['1', '-1000000.00'], [5, 12], 32)).toEqual([
      'Needs attention now',
      `${'1'.padStart(5)} ${'-1000000.00'.padStart(12)}`.padStart(32),
    ]);
  });
});

describe('receipt text', () => {
  it('lays out a card sale for 32 and 48 columns (golden), customer and merchant copies', () => {
    for (const width of WIDTHS) {
      for (const copy of ['customer', 'merchant'] as const) {
        const text = receiptText(receipt(sale, { copy }), width);
        expectPrintable(text, width);
        golden(`receipt-sale-${copy}-${width}.txt`, text);
      }
    }
  });

  it('lays out a refund and a reversal with their original sale (golden)', () => {
    const refund = journalRow({
      clientTransactionId: 'ref-1',
      kind: 'refund',
      amount: 500,
      relatedClientTransactionId: sale.clientTransactionId,
      maskedPan: undefined,
      scheme: undefined,
      entryMode: undefined,
      serverTransactionId: 'srv-ref-1',
      message: 'refunded 5.00 EUR',
      platformStatus: 'Accepted',
    });
    const reversal = journalRow({
      clientTransactionId: 'rev-1',
      kind: 'cancel',
      cancelReason: 'Technical',
      amount: 1234,
      relatedClientTransactionId: sale.clientTransactionId,
      maskedPan: undefined,
      serverTransactionId: undefined,
      operator: 'agent',
    });
    golden('receipt-refund-customer-32.txt', receiptText(receipt(refund, { sale }), 32));
    golden('receipt-reversal-merchant-48.txt', receiptText(receipt(reversal, { sale, copy: 'merchant' }), 48));
  });

  it('wraps a long merchant name over centred lines and never cuts an id', () => {
    const name = 'The Extraordinarily Long-Named Neighbourhood Coffee Roastery & Bakery';
    const r = buildReceipt({
      row: sale,
      copy: 'customer',
      merchants: [{ merchantName: name, clientId: 'terminal-app-1001', default: true }],
      terminalId: 'TA-0001',
      timeZone: 'UTC',
    });
    for (const width of WIDTHS) {
      const text = receiptText(r, width);
      expectPrintable(text, width);
      const lines = text.split('\n');
      const nameLines = lines.slice(1, lines.indexOf(''));
      expect(nameLines.map((l) => l.trim()).join(' ')).toBe(name);
      expect(nameLines.length).toBeGreaterThan(1);
      // The id is never shortened: its pieces, joined, are the id.
      expect(text.replace(/\s/g, '')).toContain(sale.clientTransactionId.replace(/\s/g, ''));
      expect(text.replace(/\s/g, '')).toContain(sale.serverTransactionId);
    }
  });

  it('has a receipt for every kind and final outcome, each line printable, no card data beyond the last four digits', () => {
    const finals: TransactionState[] = ['approved', 'declined', 'failed', 'cancelled', 'reversed', 'needs_attention'];
    const done: Record<string, string> = {
      sale: 'APPROVED',
      refund: 'REFUNDED',
      cancel: 'CANCELLED',
      capture: 'CAPTURED',
    };
    const expected: Record<string, string> = {
      approved: 'APPROVED',
      declined: 'DECLINED',
      failed: 'NOT COMPLETED',
      cancelled: 'CANCELLED',
      reversed: 'REVERSED',
      needs_attention: 'NOT CONFIRMED',
    };
    for (const kind of ['sale', 'refund', 'cancel', 'capture'] as const) {
      for (const state of finals) {
        for (const method of ['card', 'manual', 'moto', 'walletA'] as const) {
          const row = journalRow({
            clientTransactionId: `${kind}-${state}`,
            kind,
            state,
            method,
            cardSecret: CARD_SECRET,
            message: 'a message for staff',
            ...(kind === 'sale' ? {} : { relatedClientTransactionId: sale.clientTransactionId, maskedPan: undefined }),
          });
          for (const copy of ['customer', 'merchant'] as const) {
            const r = receipt(row, { sale: { ...sale, method, cardSecret: CARD_SECRET }, copy });
            const word = state === 'approved' ? done[kind] : expected[state];
            expect(r.outcome.text).toBe(word);
            for (const width of WIDTHS) {
              const text = receiptText(r, width);
              expectPrintable(text, width);
              expect(text).toContain(word);
              const out = `${text}${JSON.stringify(r)}`;
              for (const bad of FORBIDDEN) expect(out, `${kind} ${state} ${method}`).not.toContain(bad);
              if (method === 'walletA') expect(out).not.toContain('0119');
              else expect(text).toContain('**** 0119');
              expect(text.includes('Note: a message for staff')).toBe(copy === 'merchant');
            }
          }
        }
      }
    }
  });

  it('prints an offline approval as approved, and refuses a transaction that is not final yet', () => {
    const offline = journalRow({
      clientTransactionId: 'off-1',
      state: 'offline_stored',
      offline: true,
      cardSecret: CARD_SECRET,
      serverTransactionId: undefined,
    });
    const r = receipt(offline);
    expect(r.outcome).toMatchObject({ code: 'approved_offline', text: 'APPROVED' });
    for (const bad of FORBIDDEN) expect(`${receiptText(r, 32)}${JSON.stringify(r)}`).not.toContain(bad);
    for (const state of ['created', 'awaiting_customer', 'in_flight', 'pending', 'reversing'] as const) {
      const err = errorOf(() => receipt(journalRow({ clientTransactionId: `open-${state}`, state })));
      expect(err.code).toBe('PAYMENT_STATE');
      expect(err.message).toContain(`is ${state}, not final yet`);
    }
  });

  it("shows the date and time in the reader's zone with its name, on both sides of a clock change", () => {
    // 01:30:05 UTC on 2026-03-29 is 03:30:05 in Berlin (summer time began at 01:00 UTC).
    expect(receipt(sale).dateTime).toMatchObject({
      date: '2026-03-29',
      time: '03:30:05',
      offset: '+02:00',
      local: '2026-03-29T03:30:05+02:00',
      utc: '2026-03-29T01:30:05.250Z',
    });
    const before = journalRow({ clientTransactionId: 'b', clientDateTime: '2026-03-29T00:59:59.000Z' });
    expect(receipt(before).dateTime).toMatchObject({ time: '01:59:59', offset: '+01:00' });
    expect(receipt(sale, { timeZone: 'America/Los_Angeles' }).dateTime).toMatchObject({
      date: '2026-03-28',
      time: '18:30:05',
      offset: '-07:00',
    });
    expect(receiptText(receipt(sale), 32).split('\n')).toContain(`${'Time'.padEnd(19)}03:30:05 CEST`);
    expect(receiptText(receipt(before), 32).split('\n')).toContain(`${'Time'.padEnd(20)}01:59:59 CET`);
  });

  it('names the merchant the row was sold for, by client id, name or platform id; the default when none', () => {
    // The platform's merchant id when known (what the acquirer's statements name), else the client id.
    expect(receipt(journalRow({ clientTransactionId: 'x', merchantId: 'terminal-app-1002' })).merchant).toEqual({
      name: 'Demo Books',
      id: 'm-1002',
    });
    expect(receipt(journalRow({ clientTransactionId: 'x', merchantId: 'Demo Books' })).merchant).toEqual({
      name: 'Demo Books',
      id: 'm-1002',
    });
    expect(receipt(journalRow({ clientTransactionId: 'x' })).merchant).toEqual({ name: 'Demo Coffee', id: 'm-1001' });
    expect(
      buildReceipt({
        row: sale,
        copy: 'customer',
        merchants: [{ merchantName: 'New Shop', clientId: 'app-9', default: true }],
        terminalId: undefined,
        timeZone: 'UTC',
      }).merchant,
    ).toEqual({ name: 'New Shop', id: 'app-9' });
    expect(receipt(journalRow({ clientTransactionId: 'x', merchantId: 'm-9' })).merchant).toEqual({
      name: 'm-9',
      id: 'm-9',
    });
  });

  it('amounts carry the currency and its minor digits', () => {
    expect(receipt(journalRow({ clientTransactionId: 'y', amount: 1500, currency: 'JPY' })).amount).toEqual({
      minor: 1500,
      currency: 'JPY',
      minorDigits: 0,
      text: '1500',
    });
    expect(receipt(journalRow({ clientTransactionId: 'k', amount: 1500, currency: 'KWD' })).amount).toEqual({
      minor: 1500,
      currency: 'KWD',
      minorDigits: 3,
      text: '1.500',
    });
    expect(
      receiptText(receipt(journalRow({ clientTransactionId: 'y', amount: 1500, currency: 'JPY' })), 32).split('\n'),
    ).toContain(`${'AMOUNT'.padEnd(24)}JPY 1500`);
  });
});
