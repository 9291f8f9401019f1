import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

describe('local API', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi();
  });
  afterAll(async () => {
    await s.close();
  });

  const api = (method: string, path: string, opts: { headers?: Record<string, string>; body?: string | object } = {}) =>
    call(s.url, method, path, { ...opts, headers: { ...s.auth, ...opts.headers } });

  describe('health routes need no token', () => {
    it('GET /healthz is 200', async () => {
      const r = await call(s.url, 'GET', '/healthz');
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ status: 'ok' });
    });

    it('GET /readyz is 200 when every check passes and 503 naming the failing one', async () => {
      const ok = await call(s.url, 'GET', '/readyz');
      expect(ok.status).toBe(200);
      expect(ok.json.ready).toBe(true);
      s.health.reader = false;
      const bad = await call(s.url, 'GET', '/readyz');
      s.health.reader = true;
      expect(bad.status).toBe(503);
      expect(bad.json.checks.reader).toEqual({ ok: false, detail: 'card reader not connected' });
    });

    it('GET /readyz accepts an unreachable platform when offline sales are allowed', async () => {
      s.health.reachable = false;
      const refused = await call(s.url, 'GET', '/readyz');
      s.health.offline = true;
      const allowed = await call(s.url, 'GET', '/readyz');
      s.health.reachable = true;
      s.health.offline = false;
      expect(refused.status).toBe(503);
      expect(allowed.status).toBe(200);
      expect(allowed.json.checks.platform.detail).toMatch(/offline sales allowed/);
    });

    it("/readyz and /api/v1/status read the platform from the health source's one view: state, reason and since", async () => {
      const view = {
        online: false,
        state: 'offline' as const,
        reason: 'the platform did not answer in time',
        since: '2026-01-01T10:00:00.000Z',
      };
      s.health.platform = () => view;
      try {
        const ready = await call(s.url, 'GET', '/readyz');
        expect(ready.status).toBe(503);
        expect(ready.json.checks.platform).toEqual({
          ok: false,
          detail: 'platform unreachable (the platform did not answer in time) and offline sales not allowed',
        });
        const status = await api('GET', '/api/v1/status');
        expect(status.json).toMatchObject({ ready: false, platform: view });
      } finally {
        delete s.health.platform;
      }
      const back = await api('GET', '/api/v1/status');
      expect(back.json.platform).toEqual({ online: true, state: 'online' });
    });
  });

  describe('access control', () => {
    it('a request without the token is refused with 401', async () => {
      const r = await call(s.url, 'GET', '/api/v1/transactions');
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('API_UNAUTHORIZED');
      expect(r.json.error.message).toMatch(/local-api.token/);
    });

    it('a wrong token is refused with 401', async () => {
      const r = await call(s.url, 'GET', '/api/v1/transactions', { headers: { authorization: `Bearer ${s.token}x` } });
      expect(r.status).toBe(401);
      const basic = await call(s.url, 'GET', '/api/v1/transactions', {
        headers: { authorization: `Basic ${s.token}` },
      });
      expect(basic.status).toBe(401);
    });

    it('a request from a foreign origin is refused with 403 and no CORS headers', async () => {
      const r = await api('POST', '/api/v1/sales', {
        headers: { origin: 'http://evil.example' },
        body: { method: 'card', amount: '1.00' },
      });
      expect(r.status).toBe(403);
      expect(r.json.error.code).toBe('API_FORBIDDEN_ORIGIN');
      expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      expect(s.payments.calls.filter((c) => c.op === 'startSale')).toHaveLength(0);
    });

    it('a preflight is never answered positively', async () => {
      const r = await call(s.url, 'OPTIONS', '/api/v1/sales', {
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(r.status).toBe(403);
      expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    });

    it("the agent's own origin is accepted", async () => {
      const port = new URL(s.url).port;
      const r = await api('GET', '/api/v1/transactions', { headers: { origin: `http://127.0.0.1:${port}` } });
      expect(r.status).toBe(200);
    });

    it('a foreign Host header (DNS rebinding) is refused, for the page too', async () => {
      const page = await call(s.url, 'GET', '/', { headers: { host: `evil.example:${new URL(s.url).port}` } });
      expect(page.status).toBe(403);
      expect(page.text).not.toContain(s.token);
      const apiCall = await api('GET', '/api/v1/transactions', { headers: { host: 'evil.example' } });
      expect(apiCall.status).toBe(403);
    });

    it('listens on loopback only', () => {
      expect(new URL(s.url).hostname).toBe('127.0.0.1');
    });
  });

  describe('sales', () => {
    it("POST /api/v1/sales parses the amount with the currency's minor units and answers 202", async () => {
      const r = await api('POST', '/api/v1/sales', { body: { method: 'card', amount: '12.34' } });
      expect(r.status).toBe(202);
      expect(r.json.transaction).toMatchObject({
        amount: 1234,
        currency: 'EUR',
        amountText: '12.34 EUR',
        state: 'in_flight',
      });
      const jpy = await api('POST', '/api/v1/sales', { body: { method: 'card', amount: '1000', currency: 'jpy' } });
      expect(jpy.json.transaction).toMatchObject({ amount: 1000, currency: 'JPY', amountText: '1000 JPY' });
      const kwd = await api('POST', '/api/v1/sales', { body: { method: 'card', amount: '1.5', currency: 'KWD' } });
      expect(kwd.json.transaction).toMatchObject({ amount: 1500, currency: 'KWD' });
    });

    it('POST /api/v1/sales with any query is refused before a sale starts (400), repeated or empty keys too', async () => {
      for (const [query, message] of [
        ['?force=1', /unknown field "force" in the query/],
        ['?x=1&x=2', /given twice/],
        ['?=', /unknown field "" in the query/],
      ] as const) {
        const r = await api('POST', `/api/v1/sales${query}`, { body: { method: 'card', amount: '12.34' } });
        expect(r.status, query).toBe(400);
        expect(r.json.error.message, query).toMatch(message);
      }
    });

    it('a wallet sale defaults to consumer scan and carries its QR', async () => {
      const r = await api('POST', '/api/v1/sales', {
        body: { method: 'walletA', amount: '5.00', merchantId: 'm-1001' },
      });
      expect(r.status).toBe(202);
      const call0 = s.payments.calls.filter((c) => c.op === 'startSale').at(-1)?.arg;
      expect(call0).toEqual({
        method: 'walletA',
        scenario: 'ConsumerScan',
        amount: 500,
        currency: 'EUR',
        merchantId: 'm-1001',
      });
      expect(r.json.transaction.qr.codeValue).toMatch(/^https:\/\/wallet.example/);
    });

    it('passes MOTO details and merchant-scan wallet ids', async () => {
      await api('POST', '/api/v1/sales', {
        body: { method: 'moto', amount: '3.00', moto: { zipCode: '10115', houseNumber: '7' } },
      });
      expect(s.payments.calls.at(-2)?.arg).toMatchObject({
        method: 'moto',
        moto: { zipCode: '10115', houseNumber: '7' },
      });
      const r = await api('POST', '/api/v1/sales', {
        body: { method: 'walletB', scenario: 'MerchantScan', walletId: '2800123', amount: '3.00' },
      });
      expect(r.status).toBe(202);
    });

    it.each([
      ['bad JSON', '{"method": "card",', /not valid JSON/],
      [
        'an unknown field',
        { method: 'card', amount: '1.00', tip: '1' },
        /unknown field "tip".*allowed: method, scenario, amount/,
      ],
      ['a number amount', { method: 'card', amount: 12.34 }, /amount must be text in major units such as "12.34"/],
      ['no amount', { method: 'card' }, /amount is required/],
      [
        'an unknown method',
        { method: 'cash', amount: '1.00' },
        /method: must be one of card, manual, moto, walletA, walletB/,
      ],
      ['too many decimals', { method: 'card', amount: '12.345' }, /EUR has 2 decimals/],
      ['a negative amount', { method: 'card', amount: '-1' }, /must not be negative/],
      ['a zero amount', { method: 'card', amount: '0.00' }, /greater than zero/],
      ['a comma', { method: 'card', amount: '12,34' }, /use a dot/],
      ['an unknown currency', { method: 'card', amount: '1.00', currency: 'ABC' }, /ABC is not an ISO 4217 currency/],
      ['a huge amount', { method: 'card', amount: '99999999999999999999' }, /too large/],
      [
        'a scenario on a card sale',
        { method: 'card', amount: '1.00', scenario: 'ConsumerScan' },
        /scenario applies to walletA and walletB only/,
      ],
      [
        'a wallet id on consumer scan',
        { method: 'walletA', amount: '1.00', walletId: 'x' },
        /walletId applies to wallet merchant-scan/,
      ],
      [
        'MOTO details on a card sale',
        { method: 'card', amount: '1.00', moto: { zipCode: '1' } },
        /moto details apply to method moto only/,
      ],
      [
        'an unknown MOTO field',
        { method: 'moto', amount: '1.00', moto: { cvv: '123' } },
        /unknown field "cvv".* at moto/,
      ],
      ['an array body', [1, 2], /request body must be a JSON object/],
    ])('refuses %s with 400 and a message a person can act on', async (_name, body, message) => {
      const before = s.payments.calls.filter((c) => c.op === 'startSale').length;
      const r = await api('POST', '/api/v1/sales', { body, headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(message);
      expect(s.payments.calls.filter((c) => c.op === 'startSale')).toHaveLength(before);
    });

    it('says where a body is not JSON without quoting it back (it may hold a password)', async () => {
      const r = await api('POST', '/api/v1/sales', {
        body: 'password=hunter2&amount=1.00',
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(/^the request body is not valid JSON \(Unexpected token 'p'\)$/);
      expect(r.text).not.toContain('hunter');
    });

    it('refuses a body that is not declared as JSON (415)', async () => {
      const r = await api('POST', '/api/v1/sales', {
        body: 'method=card&amount=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status).toBe(415);
      expect(r.json.error.code).toBe('API_UNSUPPORTED_MEDIA_TYPE');
      expect(r.json.error.message).toMatch(/Content-Type: application\/json/);
    });

    it('refuses an oversized body (413)', async () => {
      const r = await api('POST', '/api/v1/sales', { body: { method: 'card', amount: '1', x: 'a'.repeat(70_000) } });
      expect(r.status).toBe(413);
      expect(r.json.error.code).toBe('API_BODY_TOO_LARGE');
    });

    /** POST /api/v1/sales with its body written in `parts` without a Content-Length (chunked); `end: false` leaves it unfinished and the socket is dropped. */
    function chunkedSale(
      parts: string[],
      opts: { end?: boolean } = {},
    ): Promise<{ status?: number; text: string; error?: string }> {
      return new Promise((resolve) => {
        const req = request(
          new URL('/api/v1/sales', s.url),
          {
            method: 'POST',
            headers: { ...s.auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', (err) => resolve({ status: res.statusCode, text: '', error: err.message }));
          },
        );
        req.on('error', (err) => resolve({ text: '', error: err.message }));
        for (const part of parts) req.write(part);
        if (opts.end === false) setTimeout(() => req.destroy(), 50);
        else req.end();
      });
    }

    it('reads a body sent in several chunks without a length', async () => {
      const before = s.payments.calls.filter((c) => c.op === 'startSale').length;
      const r = await chunkedSale(['{"method":', '"card",', '"amount":"3.21"}']);
      expect(r.status).toBe(202);
      expect(JSON.parse(r.text).transaction).toMatchObject({ amount: 321, currency: 'EUR' });
      expect(s.payments.calls.filter((c) => c.op === 'startSale')).toHaveLength(before + 1);
    });

    it('refuses a chunked body that grows past the limit and starts nothing; the API goes on', async () => {
      const before = s.payments.calls.filter((c) => c.op === 'startSale').length;
      const r = await chunkedSale([
        '{"method":"card","amount":"1","x":"',
        ...Array.from({ length: 20 }, () => 'a'.repeat(4_000)),
        '"}',
      ]);
      // Reading stops at the limit and the client still gets its answer: the socket is not dropped.
      expect(r.status).toBe(413);
      expect(JSON.parse(r.text).error.code).toBe('API_BODY_TOO_LARGE');
      expect(s.payments.calls.filter((c) => c.op === 'startSale')).toHaveLength(before);
      expect((await api('GET', '/api/v1/transactions')).status).toBe(200);
    });

    it('a client that goes away in the middle of its body starts nothing; the API goes on', async () => {
      const before = s.payments.calls.filter((c) => c.op === 'startSale').length;
      const r = await chunkedSale(['{"method":"card",'], { end: false });
      expect(r.status).toBeUndefined();
      // A sale that must not start has no event to await: a moment for one to start, if it would.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(s.payments.calls.filter((c) => c.op === 'startSale')).toHaveLength(before);
      expect((await api('POST', '/api/v1/sales', { body: { method: 'card', amount: '1.00' } })).status).toBe(202);
    });

    it('POST /api/v1/sales/:id/abort aborts a waiting sale', async () => {
      const started = await api('POST', '/api/v1/sales', { body: { method: 'walletA', amount: '2.00' } });
      const id = started.json.transaction.clientTransactionId as string;
      const r = await api('POST', `/api/v1/sales/${id}/abort`);
      expect(r.status).toBe(200);
      expect(r.json.transaction.state).toBe('cancelled');
    });
  });

  describe('transactions', () => {
    it('GET /api/v1/transactions lists with date and limit, without event bodies', async () => {
      s.payments.view({ clientTransactionId: 'L-1', events: [{ eventType: 'x' }] });
      const r = await api('GET', '/api/v1/transactions?date=2025-03-01&limit=5');
      expect(r.status).toBe(200);
      // One row more than asked for tells the route whether a next page follows.
      expect(s.payments.calls.at(-1)).toEqual({ op: 'list', arg: { date: '2025-03-01', limit: 6 } });
      const row = (r.json.transactions as Array<Record<string, unknown>>).find((t) => t.clientTransactionId === 'L-1');
      expect(row).toMatchObject({ eventCount: 1 });
      expect(row).not.toHaveProperty('events');
    });

    it.each([
      ['/api/v1/transactions?date=yesterday', /date must be a date such as 2025-03-01/],
      ['/api/v1/transactions?limit=0', /limit must be a whole number from 1 to 1000/],
      ['/api/v1/transactions?limit=5&limit=6', /given twice/],
      ['/api/v1/transactions?sort=asc', /unknown field "sort" in the query/],
    ])('GET %s is 400', async (path, message) => {
      const r = await api('GET', path);
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(message);
    });

    it('GET /api/v1/transactions/:id returns the view with events (no embedded QR images); refresh=1 asks the platform', async () => {
      s.payments.view({
        clientTransactionId: 'G-1',
        events: [
          {
            eventType: 'walletAConsumerScanResult',
            resultData: { codeImage: 'data:image/jpeg;base64,AAAA', codeValue: 'q' },
          },
        ],
      });
      const r = await api('GET', '/api/v1/transactions/G-1?refresh=1');
      expect(r.status).toBe(200);
      expect(s.payments.calls.at(-1)).toEqual({ op: 'get', id: 'G-1', arg: { refresh: true } });
      expect(r.json.transaction.events).toEqual([
        { eventType: 'walletAConsumerScanResult', resultData: { codeValue: 'q' } },
      ]);
    });

    it('an unknown transaction is 404', async () => {
      const r = await api('GET', '/api/v1/transactions/NOPE');
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('PAYMENT_NOT_FOUND');
    });

    it('a malformed transaction id is 400', async () => {
      const r = await api('GET', '/api/v1/transactions/a%20b');
      expect(r.status).toBe(400);
    });

    it('GET /api/v1/transactions/:id/allowed-operations', async () => {
      s.payments.view({ clientTransactionId: 'A-1', amount: 500 });
      const r = await api('GET', '/api/v1/transactions/A-1/allowed-operations');
      expect(r.status).toBe(200);
      expect(r.json.allowedOperations.cancel).toEqual({ allowed: true, maxAmount: 500, maxAmountText: '5.00 EUR' });
      expect(r.json.allowedOperations.refund.reason).toBe('not captured yet');
    });

    it("POST cancel, refund and capture parse amounts in the sale's currency", async () => {
      s.payments.view({ clientTransactionId: 'J-1', amount: 5000, currency: 'JPY' });
      const c = await api('POST', '/api/v1/transactions/J-1/cancel', {
        body: { amount: '100', reason: 'Functional', approvalCode: 'A1' },
      });
      expect(c.status).toBe(200);
      expect(s.payments.calls.at(-1)).toEqual({
        op: 'cancel',
        id: 'J-1',
        arg: { amount: 100, reason: 'Functional', approvalCode: 'A1' },
      });
      const r = await api('POST', '/api/v1/transactions/J-1/refund', { body: { amount: '200' } });
      expect(r.json.transaction).toMatchObject({ kind: 'refund', amount: 200, amountText: '200 JPY' });
      const cap = await api('POST', '/api/v1/transactions/J-1/capture', { body: {} });
      expect(s.payments.calls.at(-1)).toEqual({ op: 'capture', id: 'J-1', arg: {} });
      // The capture's own row, as the engine answers it.
      expect(cap.json.transaction).toMatchObject({
        kind: 'capture',
        relatedClientTransactionId: 'J-1',
        amountText: '5000 JPY',
      });
      const bad = await api('POST', '/api/v1/transactions/J-1/refund', { body: { amount: '1.5' } });
      expect(bad.status).toBe(400);
      expect(bad.json.error.message).toMatch(/JPY has no minor unit/);
    });

    it('a cancel without a body cancels the full amount', async () => {
      s.payments.view({ clientTransactionId: 'F-1' });
      const r = await api('POST', '/api/v1/transactions/F-1/cancel');
      expect(r.status).toBe(200);
      expect(s.payments.calls.at(-1)).toEqual({ op: 'cancel', id: 'F-1', arg: {} });
    });

    it('POST /api/v1/capture-all', async () => {
      const r = await api('POST', '/api/v1/capture-all', { body: { merchantId: 'm-1001' } });
      expect(r.status).toBe(200);
      expect(Array.isArray(r.json.transactions)).toBe(true);
      expect(s.payments.calls.at(-1)).toEqual({ op: 'captureAll', arg: 'm-1001' });
    });

    it.each([
      [ErrorCodes.PAYMENT_RULE, 422],
      [ErrorCodes.PAYMENT_STATE, 409],
      [ErrorCodes.PAYMENT_ID_CONFLICT, 409],
      [ErrorCodes.PAYMENT_NOT_SENT, 503],
      [ErrorCodes.PAYMENT_NOT_DONE, 504],
      [ErrorCodes.PLATFORM_TIMEOUT, 504],
      [ErrorCodes.PLATFORM_SERVER, 502],
      [ErrorCodes.INPUT_INVALID, 400],
      [ErrorCodes.DEVICE_BUSY, 409],
    ] as const)('an engine error %s is answered with the status of its code (%i)', async (code, status) => {
      s.payments.failWith = new AgentError(code, 'the walletA cancel window has closed; refund instead');
      const r = await api('POST', '/api/v1/transactions/F-1/cancel');
      s.payments.failWith = undefined;
      expect(r.status).toBe(status);
      expect(r.json.error).toEqual({ code, message: 'the walletA cancel window has closed; refund instead' });
    });

    it('an unexpected error is 500 with a generic message and is logged', async () => {
      s.payments.failWith = new Error('sqlite exploded at /secret/path');
      const r = await api('GET', '/api/v1/transactions/F-1');
      s.payments.failWith = undefined;
      expect(r.status).toBe(500);
      expect(r.json.error).toEqual({ code: 'INTERNAL', message: 'internal error; the agent log has the details' });
      expect(s.sink.records().some((l) => l.msg === 'unexpected error in a request')).toBe(true);
    });
  });

  describe('offline, devices, status, QR', () => {
    it('GET /api/v1/offline and POST /api/v1/offline/flush', async () => {
      const r = await api('GET', '/api/v1/offline');
      expect(r.json.offline).toMatchObject({ enabled: true, count: 2 });
      const f = await api('POST', '/api/v1/offline/flush');
      expect(f.status).toBe(200);
      expect(f.json.result).toEqual({ uploaded: 2, failed: 0, remaining: 0 });
      expect(s.offline.flushed).toBe(1);
    });

    it('GET /api/v1/devices reports device states from the bus', async () => {
      s.bus.publish('device.status', { device: 'reader', state: 'connected', model: 'SIM-R1' });
      s.bus.publish('device.status', { device: 'scanner', state: 'disconnected', reason: 'port_closed' });
      const r = await api('GET', '/api/v1/devices');
      expect(r.json.devices).toEqual([
        { device: 'reader', state: 'connected', model: 'SIM-R1' },
        { device: 'display', state: 'unknown' },
        { device: 'scanner', state: 'disconnected', reason: 'port_closed' },
      ]);
    });

    it('GET /api/v1/status', async () => {
      const r = await api('GET', '/api/v1/status');
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        ready: true,
        platform: { online: true },
        agent: { defaultCurrency: 'EUR' },
        offline: { count: 2 },
      });
      expect(r.json.devices).toHaveLength(3);
    });

    it('GET /api/v1/qr/:id.svg draws the QR as SVG', async () => {
      const started = await api('POST', '/api/v1/sales', { body: { method: 'walletA', amount: '2.00' } });
      const id = started.json.transaction.clientTransactionId as string;
      const r = await api('GET', `/api/v1/qr/${id}.svg`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(r.text).toMatch(/^<svg/);
      const none = await api('GET', '/api/v1/qr/F-1.svg');
      expect(none.status).toBe(404);
      expect(none.json.error.message).toMatch(/has no QR code/);
    });

    it('unknown paths are 404 and wrong methods 405', async () => {
      const none = await api('GET', '/api/v1/nothing');
      expect(none.status).toBe(404);
      expect(none.json.error.code).toBe('API_NOT_FOUND');
      const r = await api('DELETE', '/api/v1/sales');
      expect(r.status).toBe(405);
      expect(r.json.error.code).toBe('API_METHOD_NOT_ALLOWED');
    });
  });

  describe('counter page', () => {
    it('serves the page without any credential and with a strict content security policy', async () => {
      const r = await call(s.url, 'GET', '/');
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(s.token);
      expect(r.headers['set-cookie']).toBeUndefined();
      expect(r.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(r.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(r.headers['cache-control']).toBe('no-store');
    });

    it('serves assets by name only', async () => {
      expect((await call(s.url, 'GET', '/assets/styles.css')).status).toBe(200);
      expect((await call(s.url, 'GET', '/assets/..%2Fpackage.json')).status).toBe(404);
      expect((await call(s.url, 'GET', '/assets/index.html')).status).toBe(404);
    });
  });
});

describe('offline queue absent', () => {
  it('GET /api/v1/offline answers null and flush is 404', async () => {
    const s = await startApi({ withOffline: false });
    try {
      const r = await call(s.url, 'GET', '/api/v1/offline', { headers: s.auth });
      expect(r.json).toEqual({ offline: null, items: [] });
      const f = await call(s.url, 'POST', '/api/v1/offline/flush', { headers: s.auth });
      expect(f.status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
