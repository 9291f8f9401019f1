import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endOfDayCsv, endOfDayText, localDate, receiptText } from '../../src/payments/receipts/index.js';
import type { ApiEndOfDay, ApiReceipt } from '../../src/ui/index.js';
import { call, untilTransaction, type Reply } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { DEMO_STAFF, signInCookie } from './staff.js';
import { until } from '../helpers/wait.js';

/**
 * GET /api/v1/transactions/{id}/receipt and GET /api/v1/reports/end-of-day on the whole
 * agent (docs/receipts.md): a clerk's card sale on the simulated reader and the demo
 * platform, its receipt in JSON and printer text, a sale not final yet refused with 409,
 * the day's report in JSON, CSV and text; every answer's bytes searched for card data.
 */
describe('receipt and end-of-day routes', () => {
  let t: TestAgent;
  let bearer: Record<string, string>;
  let cookie: string;
  let saleId: string;
  const answers: Reply[] = [];

  async function get(path: string, headers: Record<string, string> = bearer): Promise<Reply> {
    const r = await call(t.agent.url, 'GET', path, { headers });
    answers.push(r);
    return r;
  }

  beforeAll(async () => {
    // Wallet sales are paid only when a test says so: one stays waiting for the customer.
    t = await startTestAgent({
      flags: { sim: { walletPayDelayMs: 0 }, receipts: { timeZone: 'Europe/Berlin' } },
      level: 'info',
    });
    bearer = { authorization: `Bearer ${t.agent.localToken}` };
    cookie = await signInCookie(t.agent.url, DEMO_STAFF);
    const started = await call(t.agent.url, 'POST', '/api/v1/sales', {
      headers: { cookie },
      body: { method: 'card', amount: '12.34' },
    });
    expect(started.status).toBe(202);
    saleId = started.json.transaction.clientTransactionId as string;
    await untilTransaction(t.agent.url, bearer, saleId, 'approved', { everyMs: 50 });
  }, 60_000);
  afterAll(() => t?.stop());

  it('answers the receipt as JSON, for the program (token) and the clerk (session), by client or server id', async () => {
    const r = await get(`/api/v1/transactions/${saleId}/receipt`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const receipt = r.json.receipt as ApiReceipt;
    expect(receipt).toMatchObject({
      copy: 'customer',
      kind: 'sale',
      merchant: { name: 'Demo Coffee', id: 'm-1001' },
      terminalId: 'TA-0001',
      operator: 'staff1',
      amount: { minor: 1234, currency: 'EUR', minorDigits: 2, text: '12.34' },
      card: { last4: '0010', masked: '**** 0010', entryMode: 'ContactlessChip', entryModeText: 'Contactless' },
      clientTransactionId: saleId,
      outcome: { state: 'approved', text: 'APPROVED' },
    });
    expect(receipt.dateTime.timeZone).toBe('Europe/Berlin');
    expect(receipt.dateTime.offset).toMatch(/^\+0[12]:00$/);
    const byServer = await get(`/api/v1/transactions/${receipt.serverTransactionId ?? ''}/receipt?copy=merchant`, {
      cookie,
    });
    expect(byServer.status).toBe(200);
    expect(byServer.json.receipt).toMatchObject({
      copy: 'merchant',
      clientTransactionId: saleId,
      merchantNotes: { platformStatus: expect.any(String) },
    });
    expect((await call(t.agent.url, 'GET', `/api/v1/transactions/${saleId}/receipt`)).status).toBe(401);
  });

  it('answers printer text for 32 (default) and 48 columns, laid out from the same data', async () => {
    const json = (await get(`/api/v1/transactions/${saleId}/receipt?copy=merchant`)).json.receipt as ApiReceipt;
    const r32 = await get(`/api/v1/transactions/${saleId}/receipt?copy=merchant&format=text`);
    expect(r32.status).toBe(200);
    expect(r32.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r32.text).toBe(receiptText(json, 32));
    const r48 = await get(`/api/v1/transactions/${saleId}/receipt?format=text&width=48&copy=merchant`);
    expect(r48.text).toBe(receiptText(json, 48));
    for (const [text, width] of [
      [r32.text, 32],
      [r48.text, 48],
    ] as const) {
      expect(text).toContain('MERCHANT COPY');
      expect(text).toContain('**** 0010');
      for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(width);
    }
  });

  it('refuses a sale not final yet with 409, an unknown id with 404, and bad parameters with 400 naming them', async () => {
    const wallet = await call(t.agent.url, 'POST', '/api/v1/sales', {
      headers: bearer,
      body: { method: 'walletA', scenario: 'ConsumerScan', amount: '3.00' },
    });
    expect(wallet.status).toBe(202);
    const id = wallet.json.transaction.clientTransactionId as string;
    const pending = await get(`/api/v1/transactions/${id}/receipt`);
    expect(pending.status).toBe(409);
    expect(pending.json.error.code).toBe('PAYMENT_STATE');
    expect(pending.json.error.message).toMatch(
      new RegExp(
        `^transaction ${id} is (awaiting_customer|in_flight|created), not final yet: its receipt can be printed once it is final$`,
      ),
    );
    await until(
      `the abort of ${id} taken`,
      async () => (await call(t.agent.url, 'POST', `/api/v1/sales/${id}/abort`, { headers: bearer, body: {} })).status,
      (status) => status === 200,
      { everyMs: 50 },
    );
    expect((await get(`/api/v1/transactions/${id}/receipt`)).json.receipt.outcome.code).toBe('cancelled');

    const unknown = await get('/api/v1/transactions/no-such-sale/receipt');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("no transaction no-such-sale in this terminal's journal");
    const bad = await get(`/api/v1/transactions/${saleId}/receipt?width=40`);
    expect([bad.status, bad.json.error.code]).toEqual([400, 'API_BAD_REQUEST']);
    expect(bad.json.error.message).toMatch(/^width/);
    expect((await get(`/api/v1/transactions/${saleId}/receipt?copy=both`)).json.error.message).toBe(
      'copy: must be one of customer, merchant',
    );
    expect((await get(`/api/v1/transactions/${saleId}/receipt?format=csv`)).status).toBe(400);
    expect((await get(`/api/v1/transactions/${saleId}/receipt?colour=red`)).json.error.message).toBe(
      'unknown field "colour" in the query; allowed: copy, format, width',
    );
  });

  it("answers the end of day of today in the merchant's zone as JSON, CSV and text", async () => {
    const r = await get('/api/v1/reports/end-of-day');
    expect(r.status).toBe(200);
    const report = r.json.endOfDay as ApiEndOfDay;
    expect(report).toMatchObject({
      date: localDate(Date.now(), 'Europe/Berlin'),
      timeZone: 'Europe/Berlin',
      terminalId: 'TA-0001',
    });
    // The wallet sale voided while its QR was shown counts as a sale and its void as a cancel
    // (the journal keeps no mark of whether it was paid first): net is what was kept.
    expect(report.totals.find((l) => l.currency === 'EUR')).toMatchObject({
      sales: { count: 2, amount: 1534 },
      cancels: { count: 1, amount: 300 },
      net: 1234,
    });
    expect(report.byOperator.find((o) => o.operator === 'staff1')?.sales).toEqual({ count: 1, amount: 1234 });
    const q = `date=${report.date}&timeZone=Europe%2FBerlin`;
    const csv = await get(`/api/v1/reports/end-of-day?${q}&format=csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="end-of-day-${report.date}.csv"`);
    // The same day asked again: the same figures (only generatedAt moves).
    const again = (await get(`/api/v1/reports/end-of-day?${q}`)).json.endOfDay as ApiEndOfDay;
    expect(csv.text).toBe(endOfDayCsv(again));
    const text = await get(`/api/v1/reports/end-of-day?${q}&format=text&width=48`);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.text.split('\n').every((l) => l.length <= 48)).toBe(true);
    expect(text.text).toBe(
      endOfDayText({ ...again, generatedAtLocal: again.generatedAtLocal }, 48).replace(
        /^Printed.*$/m,
        text.text.match(/^Printed.*$/m)?.[0] ?? '',
      ),
    );
    // Another zone, another day.
    const tokyo = (await get(`/api/v1/reports/end-of-day?date=2026-01-01&timeZone=Asia%2FTokyo`)).json
      .endOfDay as ApiEndOfDay;
    expect(tokyo).toMatchObject({
      date: '2026-01-01',
      from: '2025-12-31T15:00:00.000Z',
      to: '2026-01-01T15:00:00.000Z',
      rows: 0,
      totals: [],
    });
  });

  it('refuses a zone the runtime does not know and a date that is not a day, saying what to give', async () => {
    const zone = await get('/api/v1/reports/end-of-day?timeZone=Mars%2FOlympus');
    expect([zone.status, zone.json.error.code]).toEqual([400, 'INPUT_INVALID']);
    expect(zone.json.error.message).toBe(
      '"Mars/Olympus" is not a time zone: give an IANA name such as Europe/Berlin or UTC',
    );
    expect((await get('/api/v1/reports/end-of-day?date=2026-02-30')).json.error.message).toBe(
      '2026-02-30 is not a calendar date',
    );
    expect((await get('/api/v1/reports/end-of-day?date=yesterday')).json.error.message).toBe(
      'date must be a date such as 2026-03-29',
    );
    expect((await get('/api/v1/reports/end-of-day?format=pdf')).status).toBe(400);
  });

  it('no answer carries card data beyond the last four digits', () => {
    expect(answers.length).toBeGreaterThan(10);
    const bytes = answers.map((a) => a.text).join('\n');
    // The simulated reader's BIN, KSN, expiry and its 64-hex-digit encrypted card data.
    for (const bad of ['476173', 'FFFF9876543210E0000', '2812']) expect(bytes).not.toContain(bad);
    expect(bytes).not.toMatch(/[0-9A-F]{32,}/);
    expect(bytes).not.toMatch(/[0-9]{13,}/);
  });
});
