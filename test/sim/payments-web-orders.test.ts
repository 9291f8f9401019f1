import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './payment-endpoints.js';

/** `POST /sim/control/web-orders`: a web shop's order, a payment no terminal made (docs/demo-platform.md, "Demo platform"). */
let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('web orders at the demo platform', () => {
  it('makes a keyed card payment of the merchant from the web shop: charged as the merchant captures, readable by its ids', async () => {
    const r = await h.call('POST', '/sim/control/web-orders', { amount: { amount: 3_100, currency: 'EUR' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const id = r.body.clientTransactionId as string;
    expect(id).toMatch(/^web-/);
    expect(r.body.transactionType).toBe('Payment');
    expect(h.platform.payments.netCharged(id)).toBe(3_100);
    const read = await h.call('GET', `/payment/v1/transactions/${r.body.serverTransactionId as string}`);
    expect(read.status).toBe(200);
    expect(read.body.clientTransactionId).toBe(id);
    expect(read.body.events[0]).toMatchObject({
      entryMode: 'Keyed',
      authorizationAmount: { amount: 3_100, currency: 'EUR' },
    });
  });

  it('refuses a body without an amount and an unknown merchant', async () => {
    expect((await h.call('POST', '/sim/control/web-orders', {})).status).toBe(400);
    expect(
      (
        await h.call('POST', '/sim/control/web-orders', {
          amount: { amount: 100, currency: 'EUR' },
          merchantId: 'm-9999',
        })
      ).status,
    ).toBe(404);
  });
});
