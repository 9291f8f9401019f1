import { describe, expect, it } from 'vitest';
import {
  amountIn,
  buildReceipt,
  endOfDay,
  endOfDayText,
  localDayRange,
  readerStyle,
  receiptText,
} from '../../src/payments/receipts/index.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import { journalRow, MERCHANTS } from './receipt-rows.js';

/**
 * Receipts and the end of day in the reader's language and zone (docs/receipts.md, "Language
 * and time zone"): one fixed instant, 17:18:05 UTC on 28 November 2026 (18:18:05 in Berlin),
 * printed for an English reader in UTC and a German one in Europe/Berlin.
 */

const AT = '2026-11-28T17:18:05.000Z';
const sale = journalRow({
  clientTransactionId: '9b2f4c1e-5d6a-4b7c-8e9f-0a1b2c3d4e5f',
  clientDateTime: AT,
  createdAt: AT,
  operator: 'verkauf1',
});

function text(
  row: JournalRow,
  locale: string,
  timeZone: string,
  opts: { sale?: JournalRow; copy?: 'customer' | 'merchant' } = {},
): string {
  const r = buildReceipt({
    row,
    ...(opts.sale ? { sale: opts.sale } : {}),
    copy: opts.copy ?? 'customer',
    merchants: MERCHANTS,
    terminalId: 'TA-0001',
    timeZone,
    locale,
  });
  return receiptText(r, 32);
}

/** A label on the left and its value right-aligned on one 32-column line. */
const line = (label: string, value: string): string =>
  `${label}${' '.repeat(32 - label.length - value.length)}${value}`;

describe('a receipt in the reader language and zone', () => {
  it('prints English words, the UTC time and the zone by name for en-GB in UTC', () => {
    const t = text(sale, 'en-GB', 'UTC');
    expect(t).toContain('CUSTOMER COPY');
    expect(t).toContain(line('Date', '28/11/2026'));
    expect(t).toContain(line('Time', '17:18:05 UTC'));
    expect(t).toContain('APPROVED');
    expect(t).toContain(line('AMOUNT', 'EUR 12.34'));
    expect(t).not.toContain('+00:00');
  });

  it('prints German words, 24 h Berlin time and the zone as a German reads it for de-DE in Europe/Berlin', () => {
    const t = text(sale, 'de-DE', 'Europe/Berlin');
    expect(t).toContain('KUNDENBELEG');
    expect(t).toContain(line('Datum', '28.11.2026'));
    expect(t).toContain(line('Uhrzeit', '18:18:05 MEZ'));
    expect(t).toContain('ZAHLUNG ERFOLGT');
    expect(t).toContain(line('BETRAG', 'EUR 12,34'));
    expect(t).toContain('Bitte Beleg aufbewahren');
    expect(t).not.toMatch(/[+-]\d\d:\d\d/);
    for (const english of ['CUSTOMER', 'APPROVED', 'AMOUNT', 'Please keep', 'Time', 'Date', 'Contactless'])
      expect(t, english).not.toContain(english);
  });

  it('keeps every field the receipt must carry in both languages', () => {
    for (const [locale, zone] of [
      ['en-GB', 'UTC'],
      ['de-DE', 'Europe/Berlin'],
    ] as const) {
      const t = text(sale, locale, zone);
      for (const field of [
        'Demo Coffee',
        'm-1001',
        'TA-0001',
        'MASTERCARD',
        '**** 0119',
        'verkauf1',
        'srv-7f3a9c21-0b44-4e0e-9d5a-',
        '9b2f4c1e-5d6a-4b7c-8e9f-',
      ])
        expect(t, `${locale} ${field}`).toContain(field);
      expect(t).toMatch(/Contactless|Kontaktlos/);
    }
  });

  it('gives the data in the same words and keeps the machine fields as they were', () => {
    const r = buildReceipt({
      row: sale,
      copy: 'merchant',
      merchants: MERCHANTS,
      terminalId: 'TA-0001',
      timeZone: 'Europe/Berlin',
      locale: 'de-DE',
    });
    expect(r.locale).toBe('de-DE');
    expect(r.dateTime).toEqual({
      local: '2026-11-28T18:18:05+01:00',
      date: '2026-11-28',
      time: '18:18:05',
      offset: '+01:00',
      timeZone: 'Europe/Berlin',
      utc: AT,
      dateText: '28.11.2026',
      timeText: '18:18:05',
      zoneName: 'MEZ',
    });
    expect(r.title).toBe('ZAHLUNG');
    expect(r.footer).toBe('Für Ihre Unterlagen');
  });

  it('tells the hour that repeats when clocks go back apart by the zone name', () => {
    const first = journalRow({ clientTransactionId: 'a', clientDateTime: '2026-10-25T00:30:00.000Z' });
    const second = journalRow({ clientTransactionId: 'b', clientDateTime: '2026-10-25T01:30:00.000Z' });
    expect(text(first, 'de-DE', 'Europe/Berlin')).toContain(line('Uhrzeit', '02:30:00 MESZ'));
    expect(text(second, 'de-DE', 'Europe/Berlin')).toContain(line('Uhrzeit', '02:30:00 MEZ'));
  });

  it('writes amounts from their exact digits, with the locale separator and no grouping', () => {
    expect(amountIn(Number.MAX_SAFE_INTEGER, 'EUR', 'de-DE')).toBe('90071992547409,91');
    expect(amountIn(1500, 'JPY', 'de-DE')).toBe('1500');
    expect(amountIn(1500, 'KWD', 'de-DE')).toBe('1,500');
    expect(amountIn(-600, 'EUR', 'en-GB')).toBe('-6.00');
  });

  it('words a refund in German too', () => {
    const refund = journalRow({
      clientTransactionId: 'r-1',
      kind: 'refund',
      amount: 500,
      relatedClientTransactionId: sale.clientTransactionId,
      clientDateTime: AT,
    });
    const t = text(refund, 'de-DE', 'Europe/Berlin', { sale });
    expect(t).toContain('GUTSCHRIFT');
    expect(t).toContain('ERSTATTET');
    expect(t).toContain(line('BETRAG', 'EUR 5,00'));
  });
});

describe('the end of day in the reader language and zone', () => {
  function report(locale: string, timeZone: string): string {
    const { from, to } = localDayRange('2026-11-28', timeZone);
    const r = endOfDay({
      rows: [sale],
      date: '2026-11-28',
      timeZone,
      from,
      to,
      now: Date.parse('2026-11-28T20:05:00Z'),
      merchants: MERCHANTS,
      terminalId: 'TA-0001',
      locale,
    });
    return endOfDayText(r, 32);
  }

  it('is German with German dates and the zone by name for de-DE', () => {
    const t = report('de-DE', 'Europe/Berlin');
    expect(t).toContain('TAGESABSCHLUSS');
    expect(t).toContain(line('Tag', '28.11.2026'));
    expect(t).toContain(line('Von', '28.11.2026 00:00 MEZ'));
    expect(t).toContain(line('Bis', '29.11.2026 00:00 MEZ'));
    expect(t).toContain(line('Gedruckt', '28.11.2026 21:05 MEZ'));
    expect(t).toContain('Umsätze');
    expect(t).toContain('12,34');
    expect(t).not.toMatch(/[+-]\d\d:\d\d/);
    for (const english of ['END OF DAY', 'Sales', 'Printed', 'BY MERCHANT']) expect(t, english).not.toContain(english);
  });

  it('is English with the UTC times for en-GB', () => {
    const t = report('en-GB', 'UTC');
    expect(t).toContain('END OF DAY');
    expect(t).toContain(line('Day', '28/11/2026'));
    expect(t).toContain(line('Printed', '28/11/2026 20:05 UTC'));
    expect(t).not.toContain('+00:00');
  });
});

describe('whose language and zone a receipt takes', () => {
  const counter = { locale: 'en-GB', timeZone: 'UTC' };
  it('the store setting first, then the clerk, then the counter', () => {
    const clerk = { locale: 'de-DE', timeZone: 'Europe/Berlin' };
    expect(readerStyle({ locale: 'en-US', timeZone: 'America/New_York' }, clerk, counter)).toEqual({
      locale: 'en-US',
      timeZone: 'America/New_York',
    });
    expect(readerStyle({}, clerk, counter)).toEqual(clerk);
    expect(readerStyle({}, undefined, counter)).toEqual(counter);
    expect(readerStyle({ timeZone: 'Asia/Tokyo' }, clerk, counter)).toEqual({
      locale: 'de-DE',
      timeZone: 'Asia/Tokyo',
    });
  });

  it('passes over a clerk zone or locale the runtime does not know', () => {
    expect(readerStyle({}, { locale: 'not a tag!', timeZone: 'Mars/Olympus' }, counter)).toEqual(counter);
  });
});
