import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PlatformError } from '../../src/platform/errors.js';
import type { ProcessRequest } from '../../src/platform/index.js';
import { offlineApiSource } from '../../src/ui/offline-source.js';
import type { MerchantView, OfflineApiSource, OfflineItemView } from '../../src/ui/sources.js';
import { ENCRYPTED, localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

function item(partial: Partial<OfflineItemView> & { clientTransactionId: string }): OfflineItemView {
  return { amount: 1250, currency: 'EUR', maskedPan: '476173******0010', state: 'queued', attempts: 0, storedAt: '2026-03-02T10:00:00.000Z', ...partial };
}

describe('offline queue and merchants on the local API (fake sources)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi();
    s.offline.queue.push(
      item({ clientTransactionId: 'OQ-1' }),
      item({ clientTransactionId: 'OQ-2', state: 'needs_attention', attempts: 3, lastMessage: 'offline upload refused 3 times, last: merchant blocked' }),
      item({ clientTransactionId: 'OQ-3', state: 'declined_after_upload', attempts: 1, lastMessage: 'declined after upload: Insufficient funds', serverTransactionId: 'srv-3' }),
      item({ clientTransactionId: 'OQ-4', state: 'uploaded', attempts: 1, serverTransactionId: 'srv-4' }),
    );
  });
  afterAll(async () => {
    await s.close();
  });
  const api = (method: string, path: string, body?: object | string) => call(s.url, method, path, { headers: s.auth, ...(body !== undefined ? { body } : {}) });

  it('GET /api/v1/offline lists levels and the unsettled items, oldest first, with amounts as text', async () => {
    const r = await api('GET', '/api/v1/offline');
    expect(r.status).toBe(200);
    expect(r.json.offline).toMatchObject({ count: 2, needsAttention: 1 });
    expect(r.json.items.map((i: OfflineItemView) => i.clientTransactionId)).toEqual(['OQ-1', 'OQ-2', 'OQ-3']);
    expect(r.json.items[2]).toEqual({
      clientTransactionId: 'OQ-3',
      amount: 1250,
      currency: 'EUR',
      amountText: '12.50 EUR',
      maskedPan: '476173******0010',
      state: 'declined_after_upload',
      attempts: 1,
      lastMessage: 'declined after upload: Insufficient funds',
      storedAt: '2026-03-02T10:00:00.000Z',
      serverTransactionId: 'srv-3',
    });
  });

  it('GET /api/v1/offline?state= filters, uploaded included when asked; an unknown state is a 400 naming the valid ones', async () => {
    const r = await api('GET', '/api/v1/offline?state=uploaded,needs_attention');
    expect(r.json.items.map((i: OfflineItemView) => i.clientTransactionId)).toEqual(['OQ-2', 'OQ-4']);
    const bad = await api('GET', '/api/v1/offline?state=lost');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toEqual({ code: 'API_BAD_REQUEST', message: expect.stringMatching(/unknown queue state "lost": use queued, uploading, uploaded/) });
    const empty = await api('GET', '/api/v1/offline?state=,');
    expect(empty.status).toBe(400);
    const unknown = await api('GET', '/api/v1/offline?limit=3');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toMatch(/unknown field "limit" in the query/);
  });

  it('answers only the listed fields of an item, whatever else the source hands over', async () => {
    const leaky = { ...item({ clientTransactionId: 'OQ-LEAK' }), encryptedData: ENCRYPTED, history: [{ message: 'x' }] } as OfflineItemView;
    s.offline.queue.push(leaky);
    try {
      const r = await api('GET', '/api/v1/offline');
      expect(r.text).toContain('OQ-LEAK');
      expect(r.text).not.toContain(ENCRYPTED);
      expect(r.text).not.toMatch(/encryptedData|history/);
    } finally {
      s.offline.queue.pop();
    }
  });

  it('POST /api/v1/offline/:id/requeue puts a sale needing attention back', async () => {
    const r = await api('POST', '/api/v1/offline/OQ-2/requeue', {});
    expect(r.status).toBe(200);
    expect(r.json.item).toMatchObject({ clientTransactionId: 'OQ-2', state: 'queued', lastMessage: 'queued again by staff', amountText: '12.50 EUR' });
    expect(s.offline.requeued).toEqual(['OQ-2']);
    expect(s.sink.records().some((l) => l.msg === 'offline sale queued again at the counter' && l.clientTransactionId === 'OQ-2')).toBe(true);
  });

  it('requeue errors: 409 for a sale not needing attention, 404 for an unknown one, 400 for a bad id or a body', async () => {
    const again = await api('POST', '/api/v1/offline/OQ-2/requeue');
    expect(again.status).toBe(409);
    expect(again.json.error).toEqual({ code: 'PAYMENT_STATE', message: 'offline sale OQ-2 is queued: only a sale needing attention can be queued again' });
    const declined = await api('POST', '/api/v1/offline/OQ-3/requeue');
    expect(declined.status).toBe(409);
    const missing = await api('POST', '/api/v1/offline/NOPE-1/requeue');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toEqual({ code: 'PAYMENT_NOT_FOUND', message: 'no offline sale NOPE-1 in the queue' });
    const badId = await api('POST', '/api/v1/offline/a%20b/requeue');
    expect(badId.status).toBe(400);
    expect(badId.json.error.message).toMatch(/must be a transaction id/);
    const body = await api('POST', '/api/v1/offline/OQ-1/requeue', { force: true });
    expect(body.status).toBe(400);
    expect(body.json.error.message).toMatch(/unknown field "force"/);
    const wrongMethod = await api('GET', '/api/v1/offline/OQ-1/requeue');
    expect(wrongMethod.status).toBe(405);
    expect(s.offline.requeued).toEqual(['OQ-2']);
  });

  it('GET /api/v1/merchants lists names and ids with the default, and never a secret', async () => {
    const withSecret = { merchantName: 'Demo Books', clientId: 'terminal-app-1002', default: false, clientSecret: 'demo-secret-1002-change-me', userDomain: 'demo' };
    s.merchants.list = [{ merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true }, withSecret as MerchantView];
    const r = await api('GET', '/api/v1/merchants');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      merchants: [
        { merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true },
        { merchantName: 'Demo Books', clientId: 'terminal-app-1002', default: false },
      ],
    });
    expect(r.text).not.toMatch(/secret/i);
    expect((await api('GET', '/api/v1/merchants?all=1')).status).toBe(400);
  });
});

describe('offline queue and merchants with sources lacking them', () => {
  it('no offline queue: GET answers null with no items, flush and requeue are 404; no merchants source: empty list', async () => {
    const s = await startApi({ withOffline: false, extra: { merchants: undefined } });
    try {
      const r = await call(s.url, 'GET', '/api/v1/offline', { headers: s.auth });
      expect(r.json).toEqual({ offline: null, items: [] });
      const q = await call(s.url, 'POST', '/api/v1/offline/OQ-1/requeue', { headers: s.auth });
      expect(q.status).toBe(404);
      expect(q.json.error).toEqual({ code: 'API_NOT_FOUND', message: 'the offline queue is not running on this terminal' });
      const m = await call(s.url, 'GET', '/api/v1/merchants', { headers: s.auth });
      expect(m.json).toEqual({ merchants: [] });
    } finally {
      await s.close();
    }
  });

  it('a source with only levels and flush still serves levels; requeue is a 404 saying so', async () => {
    const bare: OfflineApiSource = {
      levels: () => ({ enabled: true, count: 1, maxCount: 500, totals: { EUR: 100 }, maxTotal: { EUR: 500_000 } }),
      flush: async () => ({ uploaded: 0, failed: 0, remaining: 1 }),
    };
    const s = await startApi({ extra: { offline: bare } });
    try {
      const r = await call(s.url, 'GET', '/api/v1/offline', { headers: s.auth });
      expect(r.json).toMatchObject({ offline: { count: 1, totalsText: { EUR: '1.00 EUR' } }, items: [] });
      const q = await call(s.url, 'POST', '/api/v1/offline/OQ-1/requeue', { headers: s.auth });
      expect(q.status).toBe(404);
      expect(q.json.error.message).toMatch(/cannot queue a sale again/);
    } finally {
      await s.close();
    }
  });
});

describe('offline routes over the real offline queue', () => {
  let f: LocalFixture | undefined;
  let s: Started | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
    f?.close();
    f = undefined;
  });

  it('lists a sale needing attention, one declined after upload and one queued without card data; requeue moves the first back', async () => {
    const refuse = (id: string) => id.startsWith('na-');
    f = localFixture({ maxAttempts: 1 }, {
      isAvailable: async () => true,
      process: async (body: ProcessRequest) => {
        if (refuse(body.clientNewTransactionId)) {
          throw new PlatformError('platform refused process (422): VALIDATION: merchant blocked', {
            category: 'rejected',
            operation: 'process',
            method: 'POST',
            status: 422,
            outcomeUnknown: false,
          });
        }
        return { serverTransactionId: `srv-${body.clientNewTransactionId}`, transactionStatus: 'Refused', events: [{ resultMessage: 'Insufficient funds' }] };
      },
      status: () => Promise.reject(new Error('not used')),
    });
    storeOfflineSale(f.journal, f.offline, { id: 'na-1', amount: 1234 });
    storeOfflineSale(f.journal, f.offline, { id: 'dec-1', amount: 500, maskedPan: '400000******0002' });
    await f.offline.uploader.flush();
    storeOfflineSale(f.journal, f.offline, { id: 'q-1', amount: 700 });
    s = await startApi({ dataDir: join(f.dir, 'data'), extra: { offline: offlineApiSource(f.offline) } });
    const auth = s.auth;

    const r = await call(s.url, 'GET', '/api/v1/offline', { headers: auth });
    expect(r.status).toBe(200);
    expect(r.json.offline).toMatchObject({ count: 2, needsAttention: 1 });
    const byId = Object.fromEntries((r.json.items as OfflineItemView[]).map((i) => [i.clientTransactionId, i]));
    expect(Object.keys(byId)).toEqual(['na-1', 'dec-1', 'q-1']);
    expect(byId['na-1']).toMatchObject({ state: 'needs_attention', attempts: 1, amountText: '12.34 EUR', lastMessage: expect.stringMatching(/refused 1 times, last: .*merchant blocked/) });
    expect(byId['dec-1']).toMatchObject({ state: 'declined_after_upload', serverTransactionId: 'srv-dec-1', lastMessage: 'declined after upload: Insufficient funds', maskedPan: '400000******0002' });
    expect(byId['q-1']).toMatchObject({ state: 'queued', attempts: 0 });
    expect(r.text).not.toContain(ENCRYPTED);
    expect(r.text).not.toMatch(/encryptedData|ksn|pinblock|holdsCardData|history/i);

    const q = await call(s.url, 'POST', '/api/v1/offline/na-1/requeue', { headers: auth });
    expect(q.status).toBe(200);
    expect(q.json.item).toMatchObject({ clientTransactionId: 'na-1', state: 'queued', lastMessage: 'queued again by staff' });
    expect(f.offline.get('na-1')).toMatchObject({ state: 'queued', rejections: 0 });
    expect(f.journal.get('na-1')?.state).toBe('offline_stored');
    const twice = await call(s.url, 'POST', '/api/v1/offline/na-1/requeue', { headers: auth });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('PAYMENT_STATE');
    const declined = await call(s.url, 'POST', '/api/v1/offline/dec-1/requeue', { headers: auth });
    expect(declined.status).toBe(409);
    expect(declined.json.error.message).toMatch(/dec-1 is declined_after_upload/);
  });
});
