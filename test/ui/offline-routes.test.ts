import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PlatformError } from '../../src/platform/errors.js';
import type { ProcessRequest } from '../../src/platform/index.js';
import { LocalApiClient } from '../../src/ui/client/local-api-client.js';
import { offlineApiSource } from '../../src/ui/shared/offline-source.js';
import type { OfflineApiSource, OfflineItemView } from '../../src/ui/shared/sources.js';
import { ENCRYPTED, localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

function item(partial: Partial<OfflineItemView> & { clientTransactionId: string }): OfflineItemView {
  return {
    amount: 1250,
    currency: 'EUR',
    maskedPan: '476173******0010',
    state: 'queued',
    attempts: 0,
    storedAt: '2026-03-02T10:00:00.000Z',
    ...partial,
  };
}

describe('offline queue and merchants on the local API (fake sources)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi();
    s.offline.queue.push(
      item({ clientTransactionId: 'OQ-1' }),
      item({
        clientTransactionId: 'OQ-2',
        state: 'needs_attention',
        attempts: 3,
        lastMessage: 'offline upload refused 3 times, last: merchant blocked',
      }),
      item({
        clientTransactionId: 'OQ-3',
        state: 'declined_after_upload',
        attempts: 1,
        lastMessage: 'declined after upload: Insufficient funds',
        serverTransactionId: 'srv-3',
      }),
      item({ clientTransactionId: 'OQ-4', state: 'uploaded', attempts: 1, serverTransactionId: 'srv-4' }),
    );
  });
  afterAll(async () => {
    await s.close();
  });
  const api = (method: string, path: string, body?: object | string) =>
    call(s.url, method, path, { headers: s.auth, ...(body !== undefined ? { body } : {}) });

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
    expect(bad.json.error).toEqual({
      code: 'API_BAD_REQUEST',
      message: expect.stringMatching(/unknown queue state "lost": use queued, uploading, uploaded/),
    });
    const empty = await api('GET', '/api/v1/offline?state=,');
    expect(empty.status).toBe(400);
    const unknown = await api('GET', '/api/v1/offline?size=3');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toMatch(/unknown field "size" in the query; allowed: state, limit, after/);
  });

  it('answers only the listed fields of an item, whatever else the source hands over', async () => {
    const leaky = {
      ...item({ clientTransactionId: 'OQ-LEAK' }),
      encryptedData: ENCRYPTED,
      history: [{ message: 'x' }],
    } as OfflineItemView;
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
    expect(r.json.item).toMatchObject({
      clientTransactionId: 'OQ-2',
      state: 'queued',
      lastMessage: 'queued again by staff',
      amountText: '12.50 EUR',
    });
    expect(s.offline.requeued).toEqual(['OQ-2']);
    expect(
      s.sink
        .records()
        .some((l) => l.msg === 'offline sale queued again at the counter' && l.clientTransactionId === 'OQ-2'),
    ).toBe(true);
  });

  it('requeue errors: 409 for a sale not needing attention, 404 for an unknown one, 400 for a bad id or a body', async () => {
    const again = await api('POST', '/api/v1/offline/OQ-2/requeue');
    expect(again.status).toBe(409);
    expect(again.json.error).toEqual({
      code: 'PAYMENT_STATE',
      message: 'offline sale OQ-2 is queued: only a sale needing attention can be queued again',
    });
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
    const withSecret = {
      merchantName: 'Demo Books',
      clientId: 'terminal-app-1002',
      default: false,
      clientSecret: 'demo-secret-1002-change-me',
      userDomain: 'demo',
    };
    s.merchants.list = [
      { merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true },
      withSecret,
    ];
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
      expect(q.json.error).toEqual({
        code: 'API_NOT_FOUND',
        message: 'the offline queue is not running on this terminal',
      });
      const m = await call(s.url, 'GET', '/api/v1/merchants', { headers: s.auth });
      expect(m.json).toEqual({ merchants: [] });
    } finally {
      await s.close();
    }
  });

  it('a source with only levels and flush still serves levels; requeue is a 404 saying so', async () => {
    const bare: OfflineApiSource = {
      levels: () => ({
        enabled: true,
        count: 1,
        maxCount: 500,
        totals: { EUR: 100 },
        maxTotal: { EUR: 500_000 },
        states: { queued: 1, uploading: 0, uploaded: 0, declined_after_upload: 0, needs_attention: 0 },
      }),
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
    f = localFixture(
      { maxAttempts: 1 },
      {
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
          return {
            serverTransactionId: `srv-${body.clientNewTransactionId}`,
            transactionStatus: 'Refused',
            events: [{ resultMessage: 'Insufficient funds' }],
          };
        },
        status: () => Promise.reject(new Error('not used')),
      },
    );
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
    expect(byId['na-1']).toMatchObject({
      state: 'needs_attention',
      attempts: 1,
      amountText: '12.34 EUR',
      lastMessage: expect.stringMatching(/refused 1 times, last: .*merchant blocked/),
    });
    expect(byId['dec-1']).toMatchObject({
      state: 'declined_after_upload',
      serverTransactionId: 'srv-dec-1',
      lastMessage: 'declined after upload: Insufficient funds',
      maskedPan: '400000******0002',
    });
    expect(byId['q-1']).toMatchObject({ state: 'queued', attempts: 0 });
    expect(r.text).not.toContain(ENCRYPTED);
    expect(r.text).not.toMatch(/encryptedData|ksn|pinblock|holdsCardData|history/i);

    const q = await call(s.url, 'POST', '/api/v1/offline/na-1/requeue', { headers: auth });
    expect(q.status).toBe(200);
    expect(q.json.item).toMatchObject({
      clientTransactionId: 'na-1',
      state: 'queued',
      lastMessage: 'queued again by staff',
    });
    expect(f.offline.get('na-1')).toMatchObject({ state: 'queued', rejections: 0 });
    expect(f.journal.get('na-1')?.state).toBe('offline_stored');
    const twice = await call(s.url, 'POST', '/api/v1/offline/na-1/requeue', { headers: auth });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('PAYMENT_STATE');
    const declined = await call(s.url, 'POST', '/api/v1/offline/dec-1/requeue', { headers: auth });
    expect(declined.status).toBe(409);
    expect(declined.json.error.message).toMatch(/dec-1 is declined_after_upload/);
  });

  describe('GET /api/v1/offline in pages (docs/local-api.md, "Paging")', () => {
    async function queueOf(n: number): Promise<{ f: LocalFixture; s: Started }> {
      f = localFixture({ maxCount: 1_000 });
      for (let i = 0; i < n; i++) {
        f.clock.now += i % 3 === 0 ? 1 : 0; // some sales share a millisecond: the rowid orders them
        storeOfflineSale(f.journal, f.offline, { id: `pg-${String(i).padStart(3, '0')}` });
      }
      s = await startApi({ dataDir: join(f.dir, 'data'), extra: { offline: offlineApiSource(f.offline) } });
      return { f, s };
    }
    const ids = (items: OfflineItemView[]): string[] => items.map((i) => i.clientTransactionId);

    it('answers 100 items by default with `next`; the page after it ends without; a sale stored meanwhile comes last, nothing twice', async () => {
      const { f, s } = await queueOf(102);
      const first = await call(s.url, 'GET', '/api/v1/offline', { headers: s.auth });
      expect(first.status).toBe(200);
      expect(first.json.items).toHaveLength(100);
      expect(first.json.next).toBe('pg-099');
      expect(first.json.offline).toMatchObject({ count: 102 });
      // Stored between the two requests, in the cursor's own millisecond and after it.
      storeOfflineSale(f.journal, f.offline, { id: 'late-1' });
      f.clock.now += 1;
      storeOfflineSale(f.journal, f.offline, { id: 'late-2' });
      const second = await call(s.url, 'GET', `/api/v1/offline?after=${first.json.next}`, { headers: s.auth });
      expect(second.status).toBe(200);
      expect(ids(second.json.items)).toEqual(['pg-100', 'pg-101', 'late-1', 'late-2']);
      expect(second.json).not.toHaveProperty('next');
      const all = [...ids(first.json.items), ...ids(second.json.items)];
      expect(new Set(all).size).toBe(104);
      expect(all).toEqual(
        f.offline
          .list({ states: ['queued', 'uploading', 'declined_after_upload', 'needs_attention'] })
          .map((i) => i.clientTransactionId),
      );
    });

    it('pages with `limit` and `state` together; the local API client reads page after page up to its limit', async () => {
      const { s } = await queueOf(7);
      const seen: string[] = [];
      let after: string | undefined;
      let requests = 0;
      do {
        const r = await call(
          s.url,
          'GET',
          `/api/v1/offline?state=queued&limit=3${after !== undefined ? `&after=${after}` : ''}`,
          { headers: s.auth },
        );
        expect(r.status).toBe(200);
        expect(r.json.items.length).toBeLessThanOrEqual(3);
        seen.push(...ids(r.json.items));
        after = r.json.next;
        requests++;
      } while (after !== undefined);
      expect(requests).toBe(3);
      expect(seen).toEqual(['pg-000', 'pg-001', 'pg-002', 'pg-003', 'pg-004', 'pg-005', 'pg-006']);
      // Exactly a page's worth: no `next` (the page before knew there was no more).
      const exact = await call(s.url, 'GET', '/api/v1/offline?limit=7', { headers: s.auth });
      expect(exact.json.items).toHaveLength(7);
      expect(exact.json).not.toHaveProperty('next');
      const none = await call(s.url, 'GET', '/api/v1/offline?state=uploaded&limit=1&after=pg-000', { headers: s.auth });
      expect(none.json).toMatchObject({ items: [] });
      expect(none.json).not.toHaveProperty('next');

      const client = new LocalApiClient(s.url, s.token);
      const five = await client.offlineItems({ limit: 5 });
      expect(ids(five.items as OfflineItemView[])).toEqual(['pg-000', 'pg-001', 'pg-002', 'pg-003', 'pg-004']);
      expect(five.next).toBe('pg-004');
      const page = await client.offlineQueue(['queued'], { after: 'pg-004', limit: 1 });
      expect(ids(page.items as OfflineItemView[])).toEqual(['pg-005']);
      expect(page.next).toBe('pg-005');
      const rest = await client.offlineItems({ states: ['queued'] });
      expect(rest.items).toHaveLength(7);
      expect(rest).not.toHaveProperty('next');
    });

    it('refuses a limit out of 1 to 1000 or not in digits, and an `after` the queue does not hold, with a 400 saying what to do', async () => {
      const { s } = await queueOf(2);
      for (const bad of ['0', '1001', '1e3', '-1', '5.0', '']) {
        const r = await call(s.url, 'GET', `/api/v1/offline?limit=${encodeURIComponent(bad)}`, { headers: s.auth });
        expect(r.status, bad).toBe(400);
        expect(r.json.error, bad).toEqual({
          code: 'API_BAD_REQUEST',
          message: 'limit must be a whole number from 1 to 1000',
        });
      }
      const max = await call(s.url, 'GET', '/api/v1/offline?limit=1000', { headers: s.auth });
      expect(max.status).toBe(200);
      const unknown = await call(s.url, 'GET', '/api/v1/offline?after=pg-999', { headers: s.auth });
      expect(unknown.status).toBe(400);
      expect(unknown.json.error).toEqual({
        code: 'INPUT_INVALID',
        message: 'after: no offline sale pg-999 in the queue (pass the `next` of the page before)',
      });
      const badId = await call(s.url, 'GET', '/api/v1/offline?after=a%20b', { headers: s.auth });
      expect(badId.status).toBe(400);
      expect(badId.json.error.message).toMatch(/^after must be a transaction id/);
    });
  });
});
