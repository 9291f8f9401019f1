import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

/** The caller's reference on the local API (docs/local-api.md, "Caller reference"). */
describe('caller reference', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi();
  });
  afterAll(async () => {
    await s.close();
  });
  const api = (method: string, path: string, body?: object) =>
    call(s.url, method, path, { headers: s.auth, ...(body !== undefined ? { body } : {}) });

  it('travels with the sale (trimmed), comes back in its view, and GET /api/v1/transactions?reference= finds it', async () => {
    const a = await api('POST', '/api/v1/sales', { method: 'card', amount: '5.00', reference: '  Till 3 / 0042 ' });
    expect(a.status).toBe(202);
    expect(a.json.transaction.reference).toBe('Till 3 / 0042');
    expect(s.payments.calls.filter((c) => c.op === 'startSale').at(-1)).toMatchObject({
      arg: { reference: 'Till 3 / 0042' },
    });
    await api('POST', '/api/v1/sales', { method: 'card', amount: '6.00', reference: 'Till 3 / 0043' });
    await api('POST', '/api/v1/sales', { method: 'card', amount: '7.00' });
    const found = await api('GET', `/api/v1/transactions?reference=${encodeURIComponent('Till 3 / 0042')}`);
    expect(found.status).toBe(200);
    expect(found.json.transactions.map((t: { clientTransactionId: string }) => t.clientTransactionId)).toEqual([
      a.json.transaction.clientTransactionId,
    ]);
    expect(s.payments.calls.at(-1)).toMatchObject({ op: 'list', arg: { reference: 'Till 3 / 0042' } });
  });

  it('is refused with a clear 400 when empty, longer than 64 characters or not printable', async () => {
    for (const [reference, message] of [
      ['', /reference must not be empty/],
      ['x'.repeat(65), /reference must be at most 64 characters/],
      ['line\nbreak', /reference must be printable/],
      [42, /reference must be text/],
    ] as const) {
      const r = await api('POST', '/api/v1/sales', { method: 'card', amount: '5.00', reference });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(message);
    }
    const q = await api('GET', `/api/v1/transactions?reference=${encodeURIComponent('a\u0007b')}`);
    expect(q.status).toBe(400);
  });
});
