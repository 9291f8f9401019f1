import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  SERVER_TIME,
  startPaymentsHarness,
  walletSale,
  type PaymentsHarness,
  type Reply,
} from './payment-endpoints.js';
import { until } from '../helpers/wait.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness({ walletPayDelayMs: 0, qrExpirySeconds: 120 });
});
afterEach(() => {
  h.platform.faults.clockOffsetMs = 0;
});
afterAll(async () => {
  await h.close();
});

const PROCESS = '/payment/v1/transactions/process';
const status = (id: string): Promise<Reply> => h.call('GET', `/payment/v1/transactions/${id}`);
const eventTypes = (record: { events: Array<{ eventType: string }> }): string[] =>
  record.events.map((e) => e.eventType);

describe('wallet consumer scan', () => {
  it('walletA answers Initialized with the spec QR result data', async () => {
    const sale = walletSale('walletA', 'ConsumerScan');
    const r = await h.call('POST', PROCESS, sale);
    expect(r.status).toBe(200);
    expect(r.body.transactionStatus).toBe('Initialized');
    expect(eventTypes(r.body)).toEqual(['walletARequest', 'walletAConsumerScanResult']);
    const [request, result] = r.body.events;
    expect(request.instrument).toEqual({ instrumentType: 'walletA', paymentScenario: 'ConsumerScan' });
    expect(request.serverProcessingDateTime).toMatch(SERVER_TIME);
    const data = result.resultData;
    expect(data).toMatchObject({ paymentAmount: { currency: 'EUR', value: '2000' }, acquirerId: 'acq-01' });
    expect(typeof data.paymentId).toBe('string');
    expect(data.orderCodeForm.paymentMethodType).toBe('walletA');
    expect(data.orderCodeForm.expireTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/);
    const expiresIn = Date.parse(data.orderCodeForm.expireTime) - Date.now();
    expect(expiresIn).toBeGreaterThan(100_000);
    expect(expiresIn).toBeLessThanOrEqual(120_000);
    const code = data.orderCodeForm.codeDetails;
    expect(code).toMatchObject({ codeValueType: expect.any(String), displayType: expect.any(String) });
    expect(code.codeValue).toMatch(/^https:\/\//);
    expect(code.codeImage).toMatch(/^data:image\/jpeg;base64,/);
    const jpeg = Buffer.from(code.codeImage.slice('data:image/jpeg;base64,'.length), 'base64');
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(jpeg.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(0);
  });

  it('walletB answers Initialized with codeValue URL, paymentAmount, paymentTime and pspCustomerInfo', async () => {
    const r = await h.call('POST', PROCESS, walletSale('walletB', 'ConsumerScan'));
    expect(r.body.transactionStatus).toBe('Initialized');
    expect(eventTypes(r.body)).toEqual(['walletBRequest', 'walletBConsumerScanResult']);
    const data = r.body.events[1].resultData;
    expect(data.codeValue).toMatch(/^https:\/\//);
    expect(data.paymentAmount).toEqual({ currency_code: 'EUR', value: '20.00' });
    expect(data.paymentTime).toMatch(SERVER_TIME);
    expect(data.pspCustomerInfo).toMatchObject({
      pspName: 'walletB',
      pspCustomerId: expect.any(String),
      displayCustomerId: expect.any(String),
    });
  });

  it('moves to Accepted when the consumer pays (control route), the event shows in the status call and the ledger', async () => {
    const sale = walletSale('walletA', 'ConsumerScan');
    const created = await h.call('POST', PROCESS, sale);
    const paid = await h.call(
      'POST',
      `/sim/control/wallet/${created.body.serverTransactionId as string}/pay`,
      undefined,
      { token: null },
    );
    expect(paid.status).toBe(200);
    expect(paid.body.transactionStatus).toBe('Accepted');
    const s = await status(sale.clientNewTransactionId as string);
    expect(s.body.transactionStatus).toBe('Accepted');
    expect(eventTypes(s.body)).toEqual(['walletARequest', 'walletAConsumerScanResult', 'walletAPaymentNotification']);
    expect(s.body.events[2]).toMatchObject({
      result: 'Accepted',
      resultData: { paymentId: created.body.events[1].resultData.paymentId },
    });
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(2000);
    // A second outcome for the same payment is refused.
    const again = await h.call('POST', `/sim/control/wallet/${sale.clientNewTransactionId as string}/fail`, undefined, {
      token: null,
    });
    expect(again.status).toBe(409);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(2000);
  });

  it('moves to Failed or Expired on the control calls (by client id), nothing charged', async () => {
    const a = walletSale('walletB', 'ConsumerScan');
    const b = walletSale('walletB', 'ConsumerScan');
    await h.call('POST', PROCESS, a);
    await h.call('POST', PROCESS, b);
    expect(
      (await h.call('POST', `/sim/control/wallet/${a.clientNewTransactionId as string}/fail`)).body.transactionStatus,
    ).toBe('Failed');
    expect(h.platform.payments.wallet.expire(b.clientNewTransactionId as string).transactionStatus).toBe('Expired');
    const sa = await status(a.clientNewTransactionId as string);
    expect(sa.body.events.at(-1)).toMatchObject({ eventType: 'walletBPaymentNotification', result: 'Failed' });
    const sb = await status(b.clientNewTransactionId as string);
    expect(sb.body.events.at(-1)).toMatchObject({ eventType: 'walletBPaymentNotification', result: 'Expired' });
    expect(h.platform.payments.netCharged(a.clientNewTransactionId as string)).toBe(0);
    expect(h.platform.payments.netCharged(b.clientNewTransactionId as string)).toBe(0);
  });

  it('answers 404 for an unknown transaction and for an unknown action on the wallet control', async () => {
    expect((await h.call('POST', '/sim/control/wallet/nope/pay')).status).toBe(404);
    const sale = walletSale('walletA', 'ConsumerScan');
    await h.call('POST', PROCESS, sale);
    expect((await h.call('POST', `/sim/control/wallet/${sale.clientNewTransactionId as string}/steal`)).status).toBe(
      404,
    );
  });

  it('expires by itself when the QR expiry time passes on the platform clock', async () => {
    const sale = walletSale('walletA', 'ConsumerScan');
    await h.call('POST', PROCESS, sale);
    h.platform.faults.clockOffsetMs = 119_000;
    expect((await status(sale.clientNewTransactionId as string)).body.transactionStatus).toBe('Initialized');
    h.platform.faults.clockOffsetMs = 121_000;
    const s = await status(sale.clientNewTransactionId as string);
    expect(s.body.transactionStatus).toBe('Expired');
    expect(s.body.events.at(-1)).toMatchObject({ eventType: 'walletAPaymentNotification', result: 'Expired' });
    // Reading it again does not add another event.
    expect((await status(sale.clientNewTransactionId as string)).body.events).toHaveLength(3);
  });

  it('answers the existing consumer-scan payment for a repeated clientNewTransactionId', async () => {
    const sale = walletSale('walletB', 'ConsumerScan');
    const first = await h.call('POST', PROCESS, sale);
    const again = await h.call('POST', PROCESS, sale);
    expect(again.body.serverTransactionId).toBe(first.body.serverTransactionId);
    expect(again.body.events[1].resultData.codeValue).toBe(first.body.events[1].resultData.codeValue);
  });
});

describe('wallet pay delay', () => {
  it('pays by itself after walletPayDelayMs (timer)', async () => {
    const quick = await startPaymentsHarness({ walletPayDelayMs: 20 });
    try {
      const sale = walletSale('walletB', 'ConsumerScan');
      expect((await quick.call('POST', PROCESS, sale)).body.transactionStatus).toBe('Initialized');
      const s = await until(
        'the wallet sale paid by the timer',
        () => quick.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`),
        (r) => r.body.transactionStatus !== 'Initialized',
        { everyMs: 10 },
      );
      expect(s.body.transactionStatus).toBe('Accepted');
      expect(s.body.events.at(-1)).toMatchObject({ eventType: 'walletBPaymentNotification', result: 'Accepted' });
      expect(quick.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(2000);
    } finally {
      await quick.close();
    }
  });

  it('pays when the delay has passed on the platform clock, before the QR expires', async () => {
    const slow = await startPaymentsHarness({ walletPayDelayMs: 60_000, qrExpirySeconds: 300 });
    try {
      const sale = walletSale('walletA', 'ConsumerScan');
      await slow.call('POST', PROCESS, sale);
      slow.platform.faults.clockOffsetMs = 400_000;
      // The ledger applies outcomes that came due even before anyone reads the payment.
      expect(slow.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(2000);
      const s = await slow.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`);
      expect(s.body.transactionStatus).toBe('Accepted');
    } finally {
      await slow.close();
    }
  });

  it('clears its timers on stop: a due payment is not delivered afterwards', async () => {
    const p = await startPaymentsHarness({ walletPayDelayMs: 30 });
    try {
      await p.call('POST', PROCESS, walletSale('walletA', 'ConsumerScan'));
      p.platform.payments.stop();
      // Past the 30 ms the payment was due: what is tested is that nothing comes, so time is what is awaited.
      await new Promise((r) => setTimeout(r, 80));
      expect(p.platform.payments.ledger()).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

describe('wallet merchant scan and the QR terminal call', () => {
  it('walletA merchant scan is Accepted at once with the spec result data', async () => {
    const sale = walletSale('walletA', 'MerchantScan');
    const r = await h.call('POST', PROCESS, sale);
    expect(r.body.transactionStatus).toBe('Accepted');
    expect(eventTypes(r.body)).toEqual(['walletARequest', 'walletAMerchantScanResult']);
    expect(r.body.events[0].instrument.walletId).toBe('281012345678901234');
    expect(r.body.events[1].resultData).toMatchObject({
      paymentRequestId: expect.any(String),
      paymentId: expect.any(String),
      paymentAmount: { currency: 'EUR', value: '2000' },
      pspCustomerInfo: { pspName: 'walletA' },
    });
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(2000);
  });

  it('walletB merchant scan is Initialized, then Accepted about a second later', async () => {
    const sale = walletSale('walletB', 'MerchantScan');
    const r = await h.call('POST', PROCESS, sale);
    expect(r.body.transactionStatus).toBe('Initialized');
    expect(eventTypes(r.body)).toEqual(['walletBRequest', 'walletBMerchantScanResult']);
    expect(r.body.events[1].resultData).toMatchObject({
      paymentId: expect.any(String),
      walletBAmount: { currency_code: 'EUR', value: '20.00' },
    });
    h.platform.faults.clockOffsetMs = 1_000;
    const s = await status(sale.clientNewTransactionId as string);
    expect(s.body.transactionStatus).toBe('Accepted');
    expect(eventTypes(s.body)).toEqual(['walletBRequest', 'walletBMerchantScanResult', 'walletBPaymentNotification']);
  });

  it('requires the walletId for a merchant scan and a scenario for a wallet', async () => {
    const noWallet = walletSale('walletA', 'MerchantScan', {
      instrument: { instrumentType: 'walletA', paymentScenario: 'MerchantScan' },
    });
    const r = await h.call('POST', PROCESS, noWallet);
    expect(r.status).toBe(400);
    expect(r.body.errorMessage).toMatch(/walletId/);
    const noScenario = await h.call(
      'POST',
      PROCESS,
      walletSale('walletB', 'ConsumerScan', { instrument: { instrumentType: 'walletB' } }),
    );
    expect(noScenario.status).toBe(400);
  });

  it('the QR terminal call answers a merchant-scan Payment record with the scanned id as walletId, idempotently', async () => {
    const body = {
      paymentType: 'walletA',
      paymentScenario: 'MerchantScan',
      scannedPaymentId: '289912345678',
      clientTransactionId: `qr-${Date.now()}`,
      paymentAmount: { amount: 880, currency: 'EUR' },
      order: { orderId: 'ord-1', orderDescription: 'Two coffees' },
    };
    const r = await h.call('POST', '/qrcode-payment/v1/transactions', body);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      transactionType: 'Payment',
      clientTransactionId: body.clientTransactionId,
      transactionStatus: 'Accepted',
    });
    expect(r.body.events[0]).toMatchObject({
      eventType: 'walletARequest',
      WalletId: '289912345678',
      instrument: { instrumentType: 'walletA', paymentScenario: 'MerchantScan', walletId: '289912345678' },
      order: body.order,
    });
    const again = await h.call('POST', '/qrcode-payment/v1/transactions', body);
    expect(again.body.serverTransactionId).toBe(r.body.serverTransactionId);
    expect(h.platform.payments.netCharged(body.clientTransactionId)).toBe(880);
    const bad = await h.call('POST', '/qrcode-payment/v1/transactions', { ...body, scannedPaymentId: undefined });
    expect(bad.status).toBe(400);
  });
});
