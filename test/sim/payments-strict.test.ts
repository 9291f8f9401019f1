import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STRICT_TIME_ZONE } from '../../src/sim/platform/profile.js';
import { serverTime12 } from '../../src/sim/platform/payments/dates.js';
import { strictAnswer } from '../../src/sim/platform/payments/strict-answers.js';
import {
  cardSale,
  isoNow,
  newId,
  SERVER_TIME,
  startPaymentsHarness,
  walletSale,
  type PaymentsHarness,
} from './payment-endpoints.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.platform.context.profile.set('standard');
});

const PROCESS = '/payment/v1/transactions/process';
const TWELVE_HOUR = /^([1-9]|1[0-2])\/([1-9]|[12]\d|3[01])\/\d{4} ([1-9]|1[0-2]):\d{2}:\d{2} (AM|PM)$/;

describe('the strict profile\'s answers (docs/demo-platform.md, "Demo platform")', () => {
  it("writes server times in the 12-hour form with one-digit parts, in the platform's zone (12 AM midnight, 12 PM noon)", () => {
    expect(serverTime12(Date.parse('2026-01-05T08:07:03Z'), 'UTC')).toBe('1/5/2026 8:07:03 AM');
    expect(serverTime12(Date.parse('2026-01-05T00:00:00Z'), 'UTC')).toBe('1/5/2026 12:00:00 AM');
    expect(serverTime12(Date.parse('2026-01-05T12:30:00Z'), 'UTC')).toBe('1/5/2026 12:30:00 PM');
    expect(serverTime12(Date.parse('2026-01-05T08:07:03Z'), 'America/Los_Angeles')).toBe('1/5/2026 12:07:03 AM');
    expect(serverTime12(Date.parse('2026-07-05T20:07:03Z'), 'America/Los_Angeles')).toBe('7/5/2026 1:07:03 PM');
    expect(h.platform.context.profile.timeZone).toBe('UTC');
    h.platform.context.profile.set('strict');
    expect(h.platform.context.profile.timeZone).toBe(STRICT_TIME_ZONE);
  });

  it('a card sale: null for what is not filled, unknown fields at every level, an unknown event type, value amounts in result events', async () => {
    h.platform.context.profile.set('strict');
    const r = await h.call('POST', PROCESS, cardSale());
    expect(r.status).toBe(200);
    const body = r.body;
    // An immediate-capture merchant's sale: the spec's process status (Accepted), the capture in its event only.
    expect(body).toMatchObject({
      transactionType: 'Payment',
      transactionStatus: 'Accepted',
      relatedServerTransactionId: null,
    });
    expect(typeof body.platformTraceId).toBe('string');
    expect(body.extensions).toMatchObject({ settlementBatch: null, riskProfile: expect.any(Object) });
    const types = body.events.map((e: { eventType: string }) => e.eventType);
    expect(types).toEqual(['cardRequest', 'platformRiskAssessment', 'cardAuthorizationResult', 'cardCaptureResult']);
    for (const e of body.events) {
      expect(e.serverProcessingDateTime).toMatch(TWELVE_HOUR);
      for (const f of ['refundId', 'refundTime', 'WalletId', 'cancelReason', 'paymentRequestId'])
        expect(e[f]).toBeNull();
      if (e.eventType !== 'platformRiskAssessment') expect(e.channelInfo).toMatchObject({ channelId: null });
    }
    const [request, , , capture] = body.events;
    // Request events keep integer amounts; result events carry value strings.
    expect(request.authorizationAmount).toEqual({ amount: 1250, currency: 'EUR' });
    expect(request.instrument).toMatchObject({ instrumentType: 'card', walletId: null });
    expect(request.source).toMatchObject({ sourceType: 'instore', acquirerName: null });
    expect(capture.captureAmount).toEqual({ value: '1250', currency: 'EUR' });
    expect(capture.resultData.providerExtension).toMatchObject({ schemaVersion: 3 });
  });

  it('the same record reads the same on every status call (each event is delivered once by the agent)', async () => {
    h.platform.context.profile.set('strict');
    const sale = cardSale();
    await h.call('POST', PROCESS, sale);
    const a = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`);
    const b = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`);
    expect(a.body).toEqual(b.body);
  });

  it("a walletA QR: expireTime in the 12-hour form of the platform's zone, the amount in the result as a value string", async () => {
    h.platform.context.profile.set('strict');
    const r = await h.call('POST', PROCESS, walletSale('walletA', 'ConsumerScan'));
    const result = r.body.events.find((e: { eventType: string }) => e.eventType === 'walletAConsumerScanResult');
    expect(result.resultData.orderCodeForm.expireTime).toMatch(TWELVE_HOUR);
    expect(result.resultData.paymentAmount).toEqual({ currency: 'EUR', value: '2000' });
    const request = r.body.events[0];
    expect(request.instrument).toMatchObject({
      instrumentType: 'walletA',
      paymentScenario: 'ConsumerScan',
      walletId: null,
    });
  });

  it('allowed operations: null for what is not filled and unknown fields', async () => {
    h.platform.context.profile.set('strict');
    const sale = cardSale();
    await h.call('POST', PROCESS, sale);
    const r = await h.call(
      'GET',
      `/payment/v1/transactions/${sale.clientNewTransactionId as string}/allowedoperations`,
    );
    expect(r.body).toEqual({ allowed: true, maxAmount: 1250, currency: 'EUR', evaluatedRules: expect.any(Array) });
  });

  it('a refund by web: the id the client invented is never recorded (unknown to the status call, 400 as the strict profile answers an unknown id, though the refund exists; the same body again is a new refund)', async () => {
    h.platform.context.profile.set('strict');
    const sale = cardSale();
    await h.call('POST', PROCESS, sale);
    const saleId = sale.clientNewTransactionId as string;
    const body = {
      clientDateTime: isoNow(),
      clientNewTransactionId: newId('web'),
      amount: { amount: 250, currency: 'EUR' },
    };
    const r = await h.call('POST', `/payment/v1/transactions/${saleId}/refundbyweb`, body);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ transactionType: 'Refund' });
    expect(r.body.clientTransactionId).not.toBe(body.clientNewTransactionId);
    expect((await h.call('GET', `/payment/v1/transactions/${body.clientNewTransactionId}`)).status).toBe(400);
    // The refund exists: by the platform's own ids, and in what is left of the sale.
    expect((await h.call('GET', `/payment/v1/transactions/${r.body.serverTransactionId as string}`)).status).toBe(200);
    expect((await h.call('GET', `/payment/v1/transactions/${saleId}/allowedoperations`)).body).toMatchObject({
      allowed: true,
      maxAmount: 1000,
    });
    const again = await h.call('POST', `/payment/v1/transactions/${saleId}/refundbyweb`, body);
    expect(again.status).toBe(200);
    expect(again.body.serverTransactionId).not.toBe(r.body.serverTransactionId);
    h.platform.payments.complete(r.body.serverTransactionId as string);
    h.platform.payments.complete(again.body.serverTransactionId as string);
    expect(h.platform.payments.netCharged(saleId)).toBe(750);
  });

  it('the standard profile answers as before: no nulls, two-digit UTC server times, integer amounts', async () => {
    const r = await h.call('POST', PROCESS, cardSale());
    expect(r.body.relatedServerTransactionId).toBeUndefined();
    expect(r.body.events.map((e: { eventType: string }) => e.eventType)).toEqual([
      'cardRequest',
      'cardAuthorizationResult',
      'cardCaptureResult',
    ]);
    expect(r.body.events[0].serverProcessingDateTime).toMatch(SERVER_TIME);
    expect(r.body.events[2].captureAmount).toEqual({ amount: 1250, currency: 'EUR' });
  });

  it('shapes a copy: the answer given is left as it was', () => {
    const record = {
      serverTransactionId: 's',
      transactionStatus: 'Accepted',
      events: [{ eventType: 'xRequest', serverProcessingDateTime: '01/05/2026 08:07:03' }],
    };
    const before = structuredClone(record);
    const shaped = strictAnswer(record, 'UTC') as { events: Array<{ serverProcessingDateTime: string }> };
    expect(record).toEqual(before);
    expect(shaped.events[0]?.serverProcessingDateTime).toBe('1/5/2026 8:07:03 AM');
  });
});
