import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardSale, startPaymentsHarness, walletSale, type PaymentsHarness } from './payment-endpoints.js';

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

describe('fault injection on the payment routes', () => {
  it('a `*` fault hits every platform route but never the control routes, so it can be switched off again', async () => {
    h.platform.faults.set('*', { status: 503 });
    expect((await h.call('POST', PROCESS, cardSale())).status).toBe(503);
    expect((await h.call('GET', '/sim/control/faults')).status).toBe(200);
    expect((await h.call('DELETE', '/sim/control/faults')).status).toBe(204);
    expect((await h.call('POST', PROCESS, cardSale())).status).toBe(200);
  });

  it('adds latency and still answers', async () => {
    h.platform.faults.set('process', { latencyMs: 60 });
    const started = Date.now();
    const r = await h.call('POST', PROCESS, cardSale());
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('an error status before the handler: nothing recorded, nothing charged', async () => {
    h.platform.faults.set('process', { status: 503, retryAfterSeconds: 2 });
    const sale = cardSale();
    const r = await h.call('POST', PROCESS, sale);
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ errorCode: 'INJECTED_FAULT', errorMessage: 'injected fault' });
    h.platform.faults.clear();
    expect((await statusOf(sale.clientNewTransactionId as string)).status).toBe(404);
    expect(ledgerOf(sale.clientNewTransactionId as string)).toEqual([]);
  });

  it('an error status after the handler: recorded and charged although the client saw 500; the retry gets the sale, charged once', async () => {
    h.platform.faults.set('process', { status: 500, afterRecord: true });
    const sale = cardSale();
    expect((await h.call('POST', PROCESS, sale)).status).toBe(500);
    h.platform.faults.clear();
    expect((await statusOf(sale.clientNewTransactionId as string)).body.transactionStatus).toBe('Captured');
    const retry = await h.call('POST', PROCESS, sale);
    expect(retry.status).toBe(200);
    expect(ledgerOf(sale.clientNewTransactionId as string)).toHaveLength(1);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(1250);
  });

  it('a connection dropped before the handler: the call fails and nothing is in the ledger', async () => {
    h.platform.faults.set('process', { drop: 'before' });
    const sale = cardSale();
    await expect(h.call('POST', PROCESS, sale)).rejects.toThrow();
    h.platform.faults.clear();
    expect(ledgerOf(sale.clientNewTransactionId as string)).toEqual([]);
    expect((await statusOf(sale.clientNewTransactionId as string)).status).toBe(404);
  });

  it('a connection dropped after the handler: recorded, the answer lost; looking up and retrying charges once', async () => {
    h.platform.faults.set('process', { drop: 'after' });
    const sale = cardSale();
    await expect(h.call('POST', PROCESS, sale)).rejects.toThrow();
    h.platform.faults.clear();
    expect(ledgerOf(sale.clientNewTransactionId as string).map((e) => e.kind)).toEqual(['sale']);
    expect((await statusOf(sale.clientNewTransactionId as string)).body.transactionStatus).toBe('Captured');
    expect((await h.call('POST', PROCESS, sale)).status).toBe(200);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(1250);
  });

  it('a write landing late: the body is read, the connection held, the sale recorded only after the delay, the answer lost', async () => {
    h.platform.faults.set('process', { recordAfterMs: 500, times: 1 });
    const sale = cardSale();
    const id = sale.clientNewTransactionId as string;
    const call = h.call('POST', PROCESS, sale);
    call.catch(() => {});
    // While the request is held, a lookup finds nothing: what a client's grace would see.
    expect((await statusOf(id)).status).toBe(404);
    expect(ledgerOf(id)).toEqual([]);
    await expect(call).rejects.toThrow();
    expect(ledgerOf(id).map((e) => e.kind)).toEqual(['sale']);
    expect((await statusOf(id)).body.transactionStatus).toBe('Captured');
  });

  it('a reversal whose answer is lost is answered with the same Cancel on retry, reversed once', async () => {
    const sale = cardSale();
    const token = h.token({ merchantId: 'm-1002' });
    await h.call('POST', PROCESS, sale, { token });
    const body = {
      clientDateTime: new Date().toISOString(),
      channel: 'instore',
      cancelReason: 'Technical',
      cancelAmount: { amount: 1250, currency: 'EUR' },
      instrument: { instrumentType: 'card' },
      approvalCode: '4711',
    };
    h.platform.faults.set('cancel', { drop: 'after' });
    await expect(
      h.call('POST', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/cancel`, body, { token }),
    ).rejects.toThrow();
    h.platform.faults.clear();
    const retry = await h.call(
      'POST',
      `/payment/v1/transactions/${sale.clientNewTransactionId as string}/cancel`,
      body,
      { token },
    );
    expect(retry.body.transactionType).toBe('Cancel');
    expect(ledgerOf(sale.clientNewTransactionId as string).map((e) => e.kind)).toEqual(['authorization', 'reversal']);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string, 'm-1002')).toBe(0);
  });

  it('faults are per route name: a broken status call leaves process working', async () => {
    h.platform.faults.set('status', { status: 502, errorCode: 'BAD_GATEWAY', errorMessage: 'upstream' });
    const sale = cardSale();
    expect((await h.call('POST', PROCESS, sale)).status).toBe(200);
    const s = await statusOf(sale.clientNewTransactionId as string);
    expect(s.status).toBe(502);
    expect(s.body).toEqual({ errorCode: 'BAD_GATEWAY', errorMessage: 'upstream' });
    for (const name of [
      'refund',
      'cancel',
      'capture',
      'captureall',
      'allowedoperations',
      'refundbyweb',
      'isAvailable',
      'qrcode',
      'countries',
    ]) {
      h.platform.faults.set(name, { status: 503 });
    }
    expect((await h.call('GET', '/payment/v1/transactions/technical/isAvailable')).status).toBe(503);
    expect((await h.call('GET', '/resources/v1/countries')).status).toBe(503);
    expect(
      (
        await h.call('POST', '/payment/v1/transactions/captureall', {
          clientDateTime: new Date().toISOString(),
          channel: 'instore',
        })
      ).status,
    ).toBe(503);
    expect((await h.call('POST', '/qrcode-payment/v1/transactions', {})).status).toBe(503);
    expect(
      (await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/allowedoperations`))
        .status,
    ).toBe(503);
    expect(
      (await h.call('POST', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/refund`, {})).status,
    ).toBe(503);
    expect(
      (await h.call('POST', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/refundbyweb`, {}))
        .status,
    ).toBe(503);
    expect(
      (await h.call('POST', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/cancel`, {})).status,
    ).toBe(503);
    expect(
      (await h.call('POST', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/capture`, {})).status,
    ).toBe(503);
  });

  it('fires a fault only the given number of times', async () => {
    h.platform.faults.set('process', { status: 503, times: 1 });
    expect((await h.call('POST', PROCESS, cardSale())).status).toBe(503);
    expect((await h.call('POST', PROCESS, cardSale())).status).toBe(200);
  });

  it('the clock offset moves the server times of events', async () => {
    h.platform.faults.clockOffsetMs = 400 * 86_400_000;
    const r = await h.call('POST', PROCESS, walletSale('walletA', 'ConsumerScan'));
    const year = Number(r.body.events[0].serverProcessingDateTime.slice(6, 10));
    expect(year).toBeGreaterThan(new Date().getUTCFullYear());
  });
});

describe('control routes of the payment platform', () => {
  it('GET /sim/control/ledger lists every movement and the net charged per sale', async () => {
    const sale = cardSale();
    await h.call('POST', PROCESS, sale);
    await h.call('POST', `/payment/v1/transactions/${sale.clientNewTransactionId as string}/refund`, {
      clientDateTime: new Date().toISOString(),
      channel: 'instore',
      clientNewTransactionId: `${sale.clientNewTransactionId as string}-r`,
      refundAmount: { amount: 250, currency: 'EUR' },
      instrument: { instrumentType: 'card' },
    });
    const r = await h.call('GET', '/sim/control/ledger', undefined, { token: null });
    expect(r.status).toBe(200);
    const entries = r.body.entries.filter(
      (e: { paymentClientTransactionId: string }) => e.paymentClientTransactionId === sale.clientNewTransactionId,
    );
    expect(entries.map((e: { kind: string; amount: number; effect: number }) => [e.kind, e.amount, e.effect])).toEqual([
      ['sale', 1250, 1250],
      ['refund', 250, -250],
    ]);
    expect(entries[1]).toMatchObject({
      merchantId: 'm-1001',
      clientTransactionId: `${sale.clientNewTransactionId as string}-r`,
      currency: 'EUR',
    });
    expect(Number.isNaN(Date.parse(entries[0].time))).toBe(false);
    expect(r.body.totals).toContainEqual(
      expect.objectContaining({ clientTransactionId: sale.clientNewTransactionId, netCharged: 1000 }),
    );
  });

  it('the platform clock can be set over the control route', async () => {
    const r = await h.call('PUT', '/sim/control/clock', { offsetMs: 2 * 86_400_000 });
    expect(r.status).toBe(204);
    expect(h.platform.context.now() - Date.now()).toBeGreaterThan(86_400_000);
  });
});
