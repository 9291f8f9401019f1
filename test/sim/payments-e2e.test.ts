import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardSale, startPaymentsHarness, walletSale, type PaymentsHarness, type Reply } from './payment-endpoints.js';
import { loadSeed, type SeedMerchant } from '../../src/sim/platform/seed.js';
import { SEED_FILE } from './payment-endpoints.js';

const seed = loadSeed(SEED_FILE);

/** Through the real authorization server: tokens obtained as terminals and applications do. */
let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness({ walletPayDelayMs: 0, accessTokenSeconds: 120 }, { testTokens: false });
});
afterEach(() => {
  h.platform.faults.clear();
});
afterAll(async () => {
  await h.close();
});

const PROCESS = '/payment/v1/transactions/process';
const merchant = (id: string): SeedMerchant => seed.merchants.find((m) => m.merchantId === id) as SeedMerchant;

/** client_credentials at the security host (an application acting for the merchant). */
async function appToken(merchantId: string): Promise<string> {
  const m = merchant(merchantId);
  const r = await h.call('POST', `/oauth2/v1/${seed.userDomain}/token`, undefined, {
    token: null,
    form: { grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret },
  });
  expect(r.status).toBe(200);
  return r.body.access_token as string;
}

/** client_credentials over mTLS at the device token endpoint (spec Authentication 5a): bound to TA-0001's certificate. */
async function deviceToken(merchantId: string): Promise<string> {
  const m = merchant(merchantId);
  const r = await h.call('POST', '/oauth2-mtls/v1/token', undefined, {
    token: null,
    mtlsListener: true,
    form: { grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret },
  });
  expect(r.status).toBe(200);
  return r.body.access_token as string;
}

describe('payment API with tokens of the authorization server', () => {
  it('an application token (client_credentials) acts for its merchant from the merchant terminal', async () => {
    const token = await appToken('m-1001');
    const sale = cardSale();
    const r = await h.call('POST', PROCESS, sale, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ merchantId: 'm-1001', transactionStatus: 'Captured' });
    expect(r.body.events[0].source).toEqual({
      sourceType: 'instore',
      storeId: 'store-01',
      logicalDeviceId: 'ldev-0001',
      physicalDeviceId: 'TA-0001',
    });
    const s = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`, undefined, {
      token,
    });
    expect(s.body.serverTransactionId).toBe(r.body.serverTransactionId);
  });

  it('a device token over mTLS works with the same certificate, on either listener, and is refused without it', async () => {
    const token = await deviceToken('m-1002');
    const sale = cardSale();
    const r = await h.call('POST', PROCESS, sale, { token, deviceCert: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ merchantId: 'm-1002', transactionStatus: 'Accepted' });
    expect(r.body.events[0].source.physicalDeviceId).toBe('TA-0001');
    const onMtls = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`, undefined, {
      token,
      mtlsListener: true,
    });
    expect(onMtls.body.transactionStatus).toBe('Accepted');
    const noCert = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`, undefined, {
      token,
    });
    expect(noCert.status).toBe(401);
    expect(noCert.text).not.toContain(token);
  });

  it('refuses an expired token (platform clock) with 401 and records nothing', async () => {
    const token = await appToken('m-1001');
    h.platform.faults.clockOffsetMs = 121_000;
    const sale = cardSale();
    const r = await h.call('POST', PROCESS, sale, { token });
    expect(r.status).toBe(401);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(0);
  });

  it('runs a walletA consumer scan to the paid state seen by status polling', async () => {
    const token = await deviceToken('m-1001');
    const sale = walletSale('walletA', 'ConsumerScan');
    const created = await h.call('POST', PROCESS, sale, { token, deviceCert: true });
    expect(created.body.transactionStatus).toBe('Initialized');
    const poll = (): Promise<Reply> =>
      h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`, undefined, {
        token,
        deviceCert: true,
      });
    expect((await poll()).body.transactionStatus).toBe('Initialized');
    expect(
      (
        await h.call('POST', `/sim/control/wallet/${sale.clientNewTransactionId as string}/pay`, undefined, {
          token: null,
        })
      ).status,
    ).toBe(200);
    const paid = await poll();
    expect(paid.body.transactionStatus).toBe('Accepted');
    expect(paid.body.events.at(-1).eventType).toBe('walletAPaymentNotification');
    // m-1001's aggregator asks for no approval code.
    const refund = await h.call(
      'POST',
      `/payment/v1/transactions/${sale.clientNewTransactionId as string}/refund`,
      {
        clientDateTime: new Date().toISOString(),
        channel: 'instore',
        clientNewTransactionId: `${sale.clientNewTransactionId as string}-r1`,
        refundAmount: { amount: 2000, currency: 'EUR' },
        instrument: { instrumentType: 'walletA' },
      },
      { token, deviceCert: true },
    );
    expect(refund.body.transactionStatus).toBe('Accepted');
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string, 'm-1001')).toBe(0);
  });
});
