import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEndOfDay, ApiReceipt } from '../../src/ui/index.js';
import { call, untilTransaction } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { DEMO_GERMAN, DEMO_STAFF, signInCookie } from './staff.js';

/**
 * Whose language and zone a receipt and the end of day are written in, on the whole agent
 * with the demo platform's clerks (docs/receipts.md, "Language and time zone"): the store's
 * receipts.locale / receipts.timeZone when set, else the signed-in clerk's token claims
 * (verkauf1: de-DE, Europe/Berlin; staff1: en-GB, Europe/Berlin), else api.locale /
 * api.timeZone (a program with the token: the CLI).
 */

async function approvedSale(t: TestAgent, cookie: string): Promise<string> {
  const started = await call(t.agent.url, 'POST', '/api/v1/sales', {
    headers: { cookie },
    body: { method: 'card', amount: '12.34' },
  });
  expect(started.status).toBe(202);
  const id = started.json.transaction.clientTransactionId as string;
  const bearer = { authorization: `Bearer ${t.agent.localToken}` };
  await untilTransaction(t.agent.url, bearer, id, 'approved', { everyMs: 50 });
  return id;
}

async function receiptAs(
  t: TestAgent,
  id: string,
  headers: Record<string, string>,
): Promise<{ json: ApiReceipt; text: string }> {
  const json = await call(t.agent.url, 'GET', `/api/v1/transactions/${id}/receipt`, { headers });
  const text = await call(t.agent.url, 'GET', `/api/v1/transactions/${id}/receipt?format=text`, { headers });
  expect([json.status, text.status]).toEqual([200, 200]);
  return { json: json.json.receipt as ApiReceipt, text: text.text };
}

async function endOfDayAs(t: TestAgent, headers: Record<string, string>): Promise<{ json: ApiEndOfDay; text: string }> {
  const json = await call(t.agent.url, 'GET', '/api/v1/reports/end-of-day', { headers });
  const text = await call(t.agent.url, 'GET', '/api/v1/reports/end-of-day?format=text', { headers });
  expect([json.status, text.status]).toEqual([200, 200]);
  return { json: json.json.endOfDay as ApiEndOfDay, text: text.text };
}

describe('receipts for their reader: the clerk claims when the store names nothing', () => {
  let t: TestAgent;
  let saleId: string;
  let german: string;
  let english: string;

  beforeAll(async () => {
    t = await startTestAgent({ flags: { api: { locale: 'en-GB', timeZone: 'UTC' } } });
    english = await signInCookie(t.agent.url, DEMO_STAFF);
    german = await signInCookie(t.agent.url, DEMO_GERMAN);
    saleId = await approvedSale(t, german);
  }, 60_000);
  afterAll(() => t?.stop());

  it('writes the German clerk a German receipt in Berlin time', async () => {
    const r = await receiptAs(t, saleId, { cookie: german });
    expect(r.json).toMatchObject({
      locale: 'de-DE',
      title: 'ZAHLUNG',
      operator: 'verkauf1',
      dateTime: { timeZone: 'Europe/Berlin', zoneName: expect.stringMatching(/^MES?Z$/) },
    });
    expect(r.text).toContain('KUNDENBELEG');
    expect(r.text).toMatch(/^Uhrzeit +\d\d:\d\d:\d\d MES?Z$/m);
    expect(r.text).toMatch(/^BETRAG +EUR 12,34$/m);
  });

  it('writes the English clerk the same receipt in English, in the zone of their token', async () => {
    const r = await receiptAs(t, saleId, { cookie: english });
    expect(r.json).toMatchObject({
      locale: 'en-GB',
      title: 'SALE',
      dateTime: { timeZone: 'Europe/Berlin', zoneName: expect.stringMatching(/^CES?T$/) },
    });
    expect(r.text).toContain('CUSTOMER COPY');
  });

  it('writes a program with the token (no clerk) in api.locale and api.timeZone', async () => {
    const r = await receiptAs(t, saleId, { authorization: `Bearer ${t.agent.localToken}` });
    expect(r.json).toMatchObject({ locale: 'en-GB', dateTime: { timeZone: 'UTC', zoneName: 'UTC' } });
    expect(r.text).toMatch(/^Time +\d\d:\d\d:\d\d UTC$/m);
  });

  it('adds up the German clerk day in Berlin, in German', async () => {
    const r = await endOfDayAs(t, { cookie: german });
    expect(r.json).toMatchObject({ locale: 'de-DE', timeZone: 'Europe/Berlin' });
    expect(r.text).toContain('TAGESABSCHLUSS');
    const program = await endOfDayAs(t, { authorization: `Bearer ${t.agent.localToken}` });
    expect(program.json).toMatchObject({ locale: 'en-GB', timeZone: 'UTC' });
    expect(program.text).toContain('END OF DAY');
  });
});

describe('receipts for their reader: the store setting over the clerk', () => {
  let t: TestAgent;

  beforeAll(async () => {
    t = await startTestAgent({
      flags: { api: { locale: 'de-DE', timeZone: 'UTC' }, receipts: { locale: 'en-GB', timeZone: 'America/New_York' } },
    });
  }, 60_000);
  afterAll(() => t?.stop());

  it('writes every reader, the German clerk too, in receipts.locale and receipts.timeZone', async () => {
    const german = await signInCookie(t.agent.url, DEMO_GERMAN);
    const id = await approvedSale(t, german);
    for (const headers of [{ cookie: german }, { authorization: `Bearer ${t.agent.localToken}` }] as Array<
      Record<string, string>
    >) {
      const r = await receiptAs(t, id, headers);
      expect(r.json).toMatchObject({
        locale: 'en-GB',
        title: 'SALE',
        dateTime: { timeZone: 'America/New_York', zoneName: expect.stringMatching(/^(E[SD]T|GMT-[45])$/) },
      });
      const day = await endOfDayAs(t, headers);
      expect(day.json).toMatchObject({ locale: 'en-GB', timeZone: 'America/New_York' });
    }
  });
});
