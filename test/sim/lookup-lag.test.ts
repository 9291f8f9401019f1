import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardSale, startPaymentsHarness, type PaymentsHarness } from './payment-endpoints.js';

// A platform whose reads lag its writes (docs/demo-platform.md, "Demo platform", faults:
// `lookupLagMs`): the contract promises no read-after-write, so the demo platform can hide
// what it recorded from lookups by id for a while, and then also takes a repeated
// clientNewTransactionId for a new sale.
let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterEach(() => {
  h.platform.faults.clear();
});
afterAll(async () => {
  await h.close();
});

const PROCESS = '/payment/v1/transactions/process';
const statusOf = (id: string) => h.call('GET', `/payment/v1/transactions/${id}`);
const ledgerOf = (id: string) => h.platform.payments.ledger().filter((e) => e.paymentClientTransactionId === id);
/** Moves the platform's clock on (its lag is measured on it). */
const later = (ms: number): void => {
  h.platform.faults.clockOffsetMs += ms;
};

describe("lookups that lag the platform's writes", () => {
  it('answers 404 for a sale recorded less than the lag ago, by client or server id, and the sale once the lag has passed', async () => {
    h.platform.faults.set('*', { lookupLagMs: 15_000 });
    const sale = cardSale();
    const id = sale.clientNewTransactionId as string;
    const made = await h.call('POST', PROCESS, sale);
    expect(made.status).toBe(200);
    expect((await statusOf(id)).status).toBe(404);
    expect((await statusOf(made.body.serverTransactionId as string)).status).toBe(404);
    expect((await h.call('GET', `/payment/v1/transactions/${id}/allowedoperations`)).status).toBe(404);
    later(14_000);
    expect((await statusOf(id)).status).toBe(404);
    later(1_000);
    const found = await statusOf(id);
    expect(found.status).toBe(200);
    expect(found.body.serverTransactionId).toBe(made.body.serverTransactionId);
  });

  it('takes a repeated clientNewTransactionId inside the lag for a new sale: the customer is charged twice', async () => {
    h.platform.faults.set('*', { lookupLagMs: 5_000 });
    const sale = cardSale();
    const id = sale.clientNewTransactionId as string;
    const first = await h.call('POST', PROCESS, sale);
    const second = await h.call('POST', PROCESS, sale);
    expect(second.status).toBe(200);
    expect(second.body.serverTransactionId).not.toBe(first.body.serverTransactionId);
    expect(ledgerOf(id).map((e) => e.kind)).toEqual(['sale', 'sale']);
    // After the lag the repeat is the same sale again.
    later(5_000);
    const third = await h.call('POST', PROCESS, sale);
    expect(third.body.serverTransactionId).toBe(second.body.serverTransactionId);
    expect(ledgerOf(id)).toHaveLength(2);
  });

  it('is per route: a lag on the status call alone leaves process recognising the repeat', async () => {
    h.platform.faults.set('status', { lookupLagMs: 5_000 });
    const sale = cardSale();
    const id = sale.clientNewTransactionId as string;
    const first = await h.call('POST', PROCESS, sale);
    expect((await statusOf(id)).status).toBe(404);
    const again = await h.call('POST', PROCESS, sale);
    expect(again.body.serverTransactionId).toBe(first.body.serverTransactionId);
    expect(ledgerOf(id)).toHaveLength(1);
  });

  it("on `*` it also lags a route with a fault of its own, whatever that fault's times", async () => {
    h.platform.faults.set('*', { lookupLagMs: 5_000 });
    h.platform.faults.set('status', { latencyMs: 1, times: 1 });
    const sale = cardSale();
    const id = sale.clientNewTransactionId as string;
    await h.call('POST', PROCESS, sale);
    expect((await statusOf(id)).status).toBe(404);
    expect((await statusOf(id)).status).toBe(404);
    later(5_000);
    expect((await statusOf(id)).status).toBe(200);
  });

  it('is set and listed over the control route, and refused when it is not a positive whole number', async () => {
    expect((await h.call('PUT', '/sim/control/faults/status', { lookupLagMs: 2_500 })).status).toBe(204);
    expect((await h.call('GET', '/sim/control/faults')).body.faults).toEqual({ status: { lookupLagMs: 2_500 } });
    expect((await h.call('PUT', '/sim/control/faults/status', { lookupLagMs: -1 })).status).toBe(400);
    expect((await h.call('PUT', '/sim/control/faults/status', { lookupLagMs: 1.5 })).status).toBe(400);
  });
});
