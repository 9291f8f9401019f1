import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DAY_ROWS_SQL,
  Journal,
  withOperator,
  type JournalRow,
  type NewJournalRow,
} from '../../src/payments/journal/index.js';
import {
  END_OF_DAY_CSV_COLUMNS,
  ReportService,
  endOfDayCsv,
  endOfDayText,
  localDate,
  localDayRange,
  type EndOfDayLine,
} from '../../src/payments/receipts/index.js';
import { errorOf } from '../helpers/agent-error.js';
import { fillJournal, freeJournal } from '../helpers/full-journal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { CARD_SECRET, FORBIDDEN, MASKED_PAN, MERCHANTS } from './receipt-rows.js';

/**
 * The end-of-day report (docs/receipts.md, "End of day") from a real SQLite journal with
 * rows written by the journal itself at chosen instants, around the clock change of
 * 2026-03-29 in Europe/Berlin (a 23-hour day).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function golden(name: string, text: string): void {
  const file = new URL(`./golden/${name}`, import.meta.url);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

function journalAt(): { journal: Journal; at(iso: string): void } {
  const { dir, cleanup } = tempDir('end-of-day-');
  let now = Date.parse('2026-03-29T12:00:00Z');
  const journal = new Journal({ dataDir: join(dir, 'data'), clock: { wall: () => now } });
  cleanups.push(cleanup, () => journal.close());
  return { journal, at: (iso) => (now = Date.parse(iso)) };
}

type Row = Partial<NewJournalRow> & { id: string; at: string; operator?: string | null; patch?: Partial<JournalRow> };

/** Inserts each row at its instant as its operator, then applies its later patch (as the engine would). */
function write(j: ReturnType<typeof journalAt>, rows: Row[]): void {
  for (const r of rows) {
    const { id, at, operator, patch, ...fields } = r;
    j.at(at);
    const insert = () =>
      j.journal.insert({
        clientTransactionId: id,
        kind: 'sale',
        amount: 1000,
        currency: 'EUR',
        state: 'in_flight',
        clientDateTime: at,
        method: 'card',
        maskedPan: MASKED_PAN,
        scheme: 'MASTERCARD',
        cardSecret: CARD_SECRET,
        ...fields,
      });
    if (operator === null) {
      insert();
      j.journal.db.prepare('UPDATE transactions SET operator = NULL WHERE client_id = ?').run(id);
    } else withOperator(operator ?? 'staff1', insert);
    if (patch !== undefined) j.journal.update(id, patch);
  }
}

/** The day in Berlin: 2026-03-28T23:00Z (00:00 CET) to 2026-03-29T22:00Z (00:00 CEST of the 30th). */
const DAY: Row[] = [
  { id: 'a-before', at: '2026-03-28T22:59:59.999Z', amount: 1000, patch: { state: 'approved' } },
  { id: 'b-first', at: '2026-03-28T23:00:00.000Z', amount: 2000, patch: { state: 'approved' } },
  {
    id: 'c-books',
    at: '2026-03-29T01:30:00.000Z',
    amount: 3000,
    merchantId: 'terminal-app-1002',
    method: 'manual',
    operator: 'staff2',
    patch: { state: 'approved', cancelledAmount: 1000 },
  },
  {
    id: 'd-refund',
    at: '2026-03-29T10:00:00.000Z',
    kind: 'refund',
    amount: 500,
    relatedClientTransactionId: 'b-first',
    operator: 'staff2',
    patch: { state: 'approved' },
  },
  {
    id: 'e-cancel',
    at: '2026-03-29T10:05:00.000Z',
    kind: 'cancel',
    amount: 1000,
    relatedClientTransactionId: 'c-books',
    merchantId: 'terminal-app-1002',
    method: 'manual',
    cancelReason: 'Functional',
    patch: { state: 'approved' },
  },
  {
    id: 'f-capture',
    at: '2026-03-29T10:10:00.000Z',
    kind: 'capture',
    amount: 2000,
    relatedClientTransactionId: 'c-books',
    merchantId: 'terminal-app-1002',
    method: 'manual',
    patch: { state: 'approved' },
  },
  {
    id: 'g-capture-all',
    at: '2026-03-29T10:15:00.000Z',
    kind: 'capture',
    amount: 0,
    method: undefined,
    patch: { state: 'approved' },
  },
  { id: 'h-offline', at: '2026-03-29T11:00:00.000Z', amount: 700, offline: true, patch: { state: 'offline_stored' } },
  { id: 'i-attention', at: '2026-03-29T11:05:00.000Z', amount: 800, patch: { state: 'needs_attention' } },
  { id: 'j-in-flight', at: '2026-03-29T11:10:00.000Z', amount: 900 },
  { id: 'k-declined', at: '2026-03-29T11:15:00.000Z', amount: 1051, patch: { state: 'declined' } },
  {
    id: 'l-given-back',
    at: '2026-03-29T12:00:00.000Z',
    amount: 1200,
    patch: { state: 'cancelled', cancelledAmount: 1200 },
  },
  {
    id: 'm-cancel-all',
    at: '2026-03-29T12:01:00.000Z',
    kind: 'cancel',
    amount: 1200,
    relatedClientTransactionId: 'l-given-back',
    cancelReason: 'Functional',
    patch: { state: 'approved' },
  },
  {
    id: 'n-web-order',
    at: '2026-03-29T13:00:00.000Z',
    amount: 5000,
    origin: 'web',
    operator: 'local-api',
    patch: { state: 'approved' },
  },
  {
    id: 'o-web-refund',
    at: '2026-03-29T13:01:00.000Z',
    kind: 'refund',
    amount: 100,
    relatedClientTransactionId: 'n-web-order',
    operator: 'local-api',
    patch: { state: 'approved' },
  },
  {
    id: 'p-yen',
    at: '2026-03-29T14:00:00.000Z',
    amount: 1500,
    currency: 'JPY',
    method: 'walletA',
    maskedPan: undefined,
    scheme: undefined,
    cardSecret: undefined,
    patch: { state: 'approved' },
  },
  { id: 'q-aborted', at: '2026-03-29T15:00:00.000Z', amount: 300, patch: { state: 'cancelled' } },
  { id: 'r-old-row', at: '2026-03-29T16:00:00.000Z', amount: 400, operator: null, patch: { state: 'approved' } },
  { id: 's-last', at: '2026-03-29T21:59:59.999Z', amount: 600, patch: { state: 'approved' } },
  { id: 't-next-day', at: '2026-03-29T22:00:00.000Z', amount: 10_000, patch: { state: 'approved' } },
];

const fig = (count: number, amount: number) => ({ count, amount });

function service(journal: Journal, timeZone = 'Europe/Berlin', now = '2026-03-29T21:30:00Z'): ReportService {
  return new ReportService({
    journal,
    sources: { merchants: () => MERCHANTS, terminalId: () => 'TA-0001' },
    timeZone,
    clock: { wall: () => Date.parse(now) },
  });
}

function eur(lines: readonly EndOfDayLine[]): EndOfDayLine | undefined {
  return lines.find((l) => l.currency === 'EUR');
}

describe('local days in a time zone', () => {
  it('are 23 and 25 hours long on the days the clocks change, and every instant is in exactly one day', () => {
    expect(localDayRange('2026-03-29', 'Europe/Berlin')).toEqual({
      from: Date.parse('2026-03-28T23:00:00Z'),
      to: Date.parse('2026-03-29T22:00:00Z'),
    });
    expect(localDayRange('2026-10-25', 'Europe/Berlin')).toEqual({
      from: Date.parse('2026-10-24T22:00:00Z'),
      to: Date.parse('2026-10-25T23:00:00Z'),
    });
    expect(localDayRange('2026-03-08', 'America/Los_Angeles')).toEqual({
      from: Date.parse('2026-03-08T08:00:00Z'),
      to: Date.parse('2026-03-09T07:00:00Z'),
    });
    expect(localDayRange('2026-03-29', 'UTC')).toEqual({
      from: Date.parse('2026-03-29T00:00:00Z'),
      to: Date.parse('2026-03-30T00:00:00Z'),
    });
    // Zones with a change at midnight (Santiago), a 30-minute change (Lord Howe), an odd offset (Kathmandu), a day line (Apia).
    for (const [zone, dates] of [
      ['America/Santiago', ['2026-09-06', '2026-04-05', '2026-01-01']],
      ['Australia/Lord_Howe', ['2026-10-04', '2026-04-05']],
      ['Asia/Kathmandu', ['2026-06-01']],
      ['Pacific/Apia', ['2026-12-31']],
      ['Europe/Berlin', ['2026-03-29', '2026-10-25', '2024-02-29']],
    ] as const) {
      for (const date of dates) {
        const { from, to } = localDayRange(date, zone);
        expect(localDate(from, zone), `${zone} ${date}`).toBe(date);
        expect(localDate(from - 1, zone) < date).toBe(true);
        expect(localDate(to - 1, zone)).toBe(date);
        expect(localDate(to, zone) > date).toBe(true);
      }
    }
  });

  it('refuses a date that is not a calendar day and a zone the runtime does not know', () => {
    expect(errorOf(() => localDayRange('2026-02-30', 'UTC')).message).toBe('2026-02-30 is not a calendar date');
    expect(errorOf(() => localDayRange('29.03.2026', 'UTC')).message).toContain('expected YYYY-MM-DD');
    const err = errorOf(() => localDayRange('2026-03-29', 'Mars/Olympus'));
    expect(err.code).toBe('INPUT_INVALID');
    expect(err.message).toContain('give an IANA name such as Europe/Berlin');
  });
});

describe('end of day from a real journal', () => {
  it('counts the rows of the local day (a 23-hour DST day) in their figures, per currency, in integer minor units', () => {
    const j = journalAt();
    write(j, DAY);
    const report = service(j.journal).endOfDay({ date: '2026-03-29' });
    expect(report).toMatchObject({
      date: '2026-03-29',
      timeZone: 'Europe/Berlin',
      from: '2026-03-28T23:00:00.000Z',
      to: '2026-03-29T22:00:00.000Z',
      fromLocal: '2026-03-29T00:00:00+01:00',
      toLocal: '2026-03-30T00:00:00+02:00',
      terminalId: 'TA-0001',
    });
    // a-before and t-next-day are other days'.
    expect(report.rows).toBe(DAY.length - 2);
    expect(eur(report.totals)).toEqual({
      currency: 'EUR',
      minorDigits: 2,
      sales: fig(5, 2000 + 3000 + 1200 + 400 + 600),
      refunds: fig(2, 500 + 100),
      cancels: fig(2, 1000 + 1200),
      captures: fig(1, 2000),
      offlinePending: fig(1, 700),
      needsAttention: fig(1, 800),
      inProgress: fig(1, 900),
      notCompleted: fig(2, 1051 + 300),
      net: 7200 - 600 - 2200,
    });
    expect(report.totals.find((l) => l.currency === 'JPY')).toMatchObject({
      minorDigits: 0,
      sales: fig(1, 1500),
      net: 1500,
    });
    // Every amount anywhere is an integer.
    const amounts = JSON.stringify(report).match(/"(amount|net)":(-?[0-9.e+]+)/g) ?? [];
    expect(amounts.length).toBeGreaterThan(50);
    for (const a of amounts) expect(Number.isInteger(Number(a.split(':')[1]))).toBe(true);
  });

  it('splits by merchant, method and operator; a web order is not a sale of this terminal', () => {
    const j = journalAt();
    write(j, DAY);
    const report = service(j.journal).endOfDay({ date: '2026-03-29' });
    const books = report.byMerchant.find((m) => m.merchantName === 'Demo Books');
    expect(books).toMatchObject({
      merchantId: 'terminal-app-1002',
      currency: 'EUR',
      sales: fig(1, 3000),
      cancels: fig(1, 1000),
      captures: fig(1, 2000),
      net: 2000,
    });
    expect(report.byMerchant.find((m) => m.merchantName === 'Demo Coffee' && m.currency === 'EUR')).toMatchObject({
      sales: fig(4, 4200),
      refunds: fig(2, 600),
      cancels: fig(1, 1200),
    });
    expect(report.byMethod.find((m) => m.method === 'manual')?.sales).toEqual(fig(1, 3000));
    expect(report.byMethod.find((m) => m.method === 'walletA')).toMatchObject({ currency: 'JPY', sales: fig(1, 1500) });
    expect(report.byOperator.find((o) => o.operator === 'staff2')).toMatchObject({
      sales: fig(1, 3000),
      refunds: fig(1, 500),
    });
    expect(report.byOperator.find((o) => o.operator === null)).toMatchObject({ sales: fig(1, 400) });
    // The web shop's order itself is in no figure; the refund given at this terminal is.
    expect(report.byOperator.find((o) => o.operator === 'local-api')).toMatchObject({
      sales: fig(0, 0),
      refunds: fig(1, 100),
      net: -100,
    });
    // Groups add up to the totals.
    const sum = report.groups.filter((g) => g.currency === 'EUR').reduce((s, g) => s + g.net, 0);
    expect(sum).toBe(eur(report.totals)?.net);
    expect(
      report.groups.every(
        (g) =>
          g.sales.count +
            g.refunds.count +
            g.cancels.count +
            g.captures.count +
            g.offlinePending.count +
            g.needsAttention.count +
            g.inProgress.count +
            g.notCompleted.count >
          0,
      ),
    ).toBe(true);
  });

  it('takes the day in the zone asked for: the same rows fall into other days in UTC and Tokyo', () => {
    const j = journalAt();
    write(j, DAY);
    const s = service(j.journal);
    const utc = s.endOfDay({ date: '2026-03-29', timeZone: 'UTC' });
    // UTC's 29th: from c-books to t-next-day (b-first is the 28th in UTC).
    expect(utc.rows).toBe(DAY.length - 2);
    expect(eur(utc.totals)?.sales).toEqual(fig(5, 3000 + 1200 + 400 + 600 + 10_000));
    const tokyo = s.endOfDay({ date: '2026-03-29', timeZone: 'Asia/Tokyo' });
    expect(tokyo.fromLocal).toBe('2026-03-29T00:00:00+09:00');
    expect(tokyo.rows).toBe(
      DAY.filter((r) => r.at >= '2026-03-28T15:00:00.000Z' && r.at < '2026-03-29T15:00:00.000Z').length,
    );
  });

  it("defaults to today in the merchant's zone", () => {
    const j = journalAt();
    write(j, DAY);
    // 21:30 UTC is 23:30 in Berlin (still the 29th) and 06:30 of the 30th in Tokyo.
    expect(service(j.journal).endOfDay().date).toBe('2026-03-29');
    expect(service(j.journal, 'Asia/Tokyo').endOfDay().date).toBe('2026-03-30');
    expect(service(j.journal, 'Asia/Tokyo').endOfDay({ timeZone: 'Europe/Berlin' }).date).toBe('2026-03-29');
  });

  it('as printer text (32 and 48 columns) and CSV (golden), with no card data in any format', () => {
    const j = journalAt();
    write(j, DAY);
    const report = service(j.journal).endOfDay({ date: '2026-03-29' });
    for (const width of [32, 48] as const) {
      const text = endOfDayText(report, width);
      for (const line of text.split('\n')) {
        expect(line.length, line).toBeLessThanOrEqual(width);
        expect(line).toBe(line.trimEnd());
      }
      golden(`end-of-day-${width}.txt`, text);
    }
    const csv = endOfDayCsv(report);
    golden('end-of-day.csv', csv);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(END_OF_DAY_CSV_COLUMNS.join(','));
    expect(lines.slice(1, -1).every((l) => l.split(',').length === END_OF_DAY_CSV_COLUMNS.length)).toBe(true);
    const out = `${JSON.stringify(report)}${csv}${endOfDayText(report, 32)}${endOfDayText(report, 48)}`;
    for (const bad of [...FORBIDDEN, '0119']) expect(out).not.toContain(bad);
  });

  it('an empty day says so', () => {
    const j = journalAt();
    const report = service(j.journal).endOfDay({ date: '2026-01-01' });
    expect(report).toMatchObject({ rows: 0, totals: [], groups: [] });
    expect(endOfDayText(report, 32)).toContain('No transactions');
    expect(endOfDayCsv(report)).toBe(`${END_OF_DAY_CSV_COLUMNS.join(',')}\r\n`);
  });

  it('CSV cells never start a spreadsheet formula, and quote commas', () => {
    const j = journalAt();
    write(j, [
      {
        id: 'x',
        at: '2026-03-29T12:00:00Z',
        operator: '=HYPERLINK("http://x")',
        merchantId: '@evil, Inc',
        patch: { state: 'approved' },
      },
    ]);
    const csv = endOfDayCsv(service(j.journal).endOfDay({ date: '2026-03-29' }));
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(csv).toContain(`"'@evil, Inc"`);
  });

  it('reads one indexed range of the journal (100,000 rows): the plan searches transactions_created', () => {
    const j = journalAt();
    const insert = j.journal.db.prepare(
      "INSERT INTO transactions (client_id, kind, amount, currency, state, client_date_time, created_at, updated_at, method, operator) VALUES (?, 'sale', ?, 'EUR', 'approved', ?, ?, ?, 'card', 'staff1')",
    );
    const start = Date.parse('2026-01-01T00:00:00Z');
    j.journal.db.transaction(() => {
      // 100 days of 1,000 rows each, 86.4 s apart.
      for (let i = 0; i < 100_000; i++) {
        const at = new Date(start + i * 86_400).toISOString();
        insert.run(`row-${i}`, 100 + (i % 7), at, at, at);
      }
    })();
    const plan = j.journal.db.prepare(`EXPLAIN QUERY PLAN ${DAY_ROWS_SQL}`).all({ from: 'a', to: 'b' }) as Array<{
      detail: string;
    }>;
    expect(plan.map((p) => p.detail)).toEqual([
      expect.stringMatching(
        /^SEARCH transactions USING INDEX transactions_created \(created_at>\? AND created_at<\?\)$/,
      ),
    ]);
    const report = service(j.journal, 'UTC').endOfDay({ date: '2026-02-01' });
    expect(report.rows).toBe(1000);
    const expected = Array.from({ length: 1000 }, (_, k) => 100 + ((31_000 + k) % 7)).reduce((a, b) => a + b, 0);
    expect(eur(report.totals)?.sales).toEqual(fig(1000, expected));
  });

  it('sees an outcome the journal keeps in memory while SQLite refuses its write (a full journal)', () => {
    const j = journalAt();
    write(j, [
      { id: 'kept', at: '2026-03-29T12:00:00Z', amount: 1500 },
      { id: 'other', at: '2026-03-29T12:30:00Z', amount: 200, patch: { state: 'approved' } },
    ]);
    // The outcome after the request left cannot be written: it is kept in memory and shown by
    // every read (docs/journal.md, "Journal", writes that fail); on disk the row stays in_flight.
    fillJournal(j.journal);
    j.journal.update('kept', {
      state: 'approved',
      serverTransactionId: 'srv-kept',
      message: `approved ${'after a long platform answer '.repeat(100)}`,
    });
    expect(j.journal.writeStatus()).toMatchObject({ writable: false, pendingWrites: 1 });
    expect(eur(service(j.journal).endOfDay({ date: '2026-03-29' }).totals)).toMatchObject({
      sales: fig(2, 1700),
      inProgress: fig(0, 0),
    });
    freeJournal(j.journal);
    j.journal.retryWrites();
    expect(j.journal.writeStatus()).toMatchObject({ writable: true, pendingWrites: 0 });
    expect(eur(service(j.journal).endOfDay({ date: '2026-03-29' }).totals)).toMatchObject({ sales: fig(2, 1700) });
  });
});
