import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardSale, newId, SERVER_TIME, startPaymentsHarness, type PaymentsHarness } from './payment-endpoints.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(async () => {
  await h.close();
});

const PROCESS = '/payment/v1/transactions/process';
const m1002 = (): string => h.token({ merchantId: 'm-1002' });
const eventTypes = (record: { events: Array<{ eventType: string }> }): string[] =>
  record.events.map((e) => e.eventType);

describe('card sale (process)', () => {
  it('captures at once for a merchant with immediate capture, with the spec record, events and date format', async () => {
    const sale = cardSale();
    const r = await h.call('POST', PROCESS, sale);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      transactionType: 'Payment',
      clientTransactionId: sale.clientNewTransactionId,
      transactionStatus: 'Captured',
      tenantId: 'tenant-demo',
      merchantAggregatorId: 'agg-open',
      merchantId: 'm-1001',
    });
    expect(typeof r.body.serverTransactionId).toBe('string');
    expect(eventTypes(r.body)).toEqual(['cardRequest', 'cardAuthorizationResult', 'cardCaptureResult']);
    const [request, auth] = r.body.events;
    expect(request.serverProcessingDateTime).toMatch(SERVER_TIME);
    expect(request.clientDateTime).toBe(sale.clientDateTime);
    expect(request.authorizationAmount).toEqual({ amount: 1250, currency: 'EUR' });
    expect(request.source).toEqual({
      sourceType: 'instore',
      storeId: 'store-01',
      logicalDeviceId: 'ldev-0001',
      physicalDeviceId: 'TA-0001',
    });
    expect(request.requestor).toEqual({});
    expect(request.instrument).toEqual({
      instrumentType: 'card',
      card: { maskedPan: '476173******0010', scheme: 'VISA' },
    });
    expect(auth.result).toBe('Accepted');
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(1250);
    expect(
      h.platform.payments
        .ledger()
        .filter((e) => e.serverTransactionId === r.body.serverTransactionId)
        .map((e) => e.kind),
    ).toEqual(['sale']);
  });

  it('never answers card data, expiry, KSN or PIN block', async () => {
    const r = await h.call(
      'POST',
      PROCESS,
      cardSale({ ksn: 'FFFF9876543210E00002', pinblock: '0412AC89ABCDEF12', pinblockFormat: 'ISO0' }),
    );
    expect(r.status).toBe(200);
    for (const secret of ['ENC-3f9a0c11d2', '12/29', 'FFFF9876543210E0000', '0412AC89ABCDEF12'])
      expect(r.text).not.toContain(secret);
    expect(r.body.events[0].onlinePin).toBe(true);
    expect(h.sink.text()).not.toContain('ENC-3f9a0c11d2');
    expect(h.sink.text()).not.toContain('0412AC89ABCDEF12');
    const logged = h.sink
      .records()
      .find((l) => l.msg === 'payment call' && l.serverTransactionId === r.body.serverTransactionId);
    expect(logged).toMatchObject({ route: 'process', merchantId: 'm-1001', status: 'Captured' });
  });

  it('authorizes only (Accepted, capturable) for a merchant with deferred capture', async () => {
    const sale = cardSale();
    const r = await h.call('POST', PROCESS, sale, { token: m1002() });
    expect(r.body.transactionStatus).toBe('Accepted');
    expect(r.body.merchantAggregatorId).toBe('agg-supervised');
    expect(eventTypes(r.body)).toEqual(['cardRequest', 'cardAuthorizationResult']);
    expect(
      h.platform.payments
        .ledger()
        .filter((e) => e.clientTransactionId === sale.clientNewTransactionId)
        .map((e) => e.kind),
    ).toEqual(['authorization']);
  });

  it('refuses a card ending in 0002: recorded with the reason, nothing charged', async () => {
    const sale = cardSale({
      instrument: { instrumentType: 'card', card: { maskedPan: '476173******0002', scheme: 'VISA' } },
    });
    const r = await h.call('POST', PROCESS, sale);
    expect(r.status).toBe(200);
    expect(r.body.transactionStatus).toBe('Refused');
    expect(r.body.events[1]).toMatchObject({ eventType: 'cardAuthorizationResult', result: 'Refused' });
    expect(r.body.events[1].resultMessage).toMatch(/do not honour/);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(0);
    const status = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`);
    expect(status.body.transactionStatus).toBe('Refused');
  });

  it('refuses an amount whose minor units end in 51', async () => {
    const r = await h.call('POST', PROCESS, cardSale({ authorizationAmount: { amount: 10_051, currency: 'EUR' } }));
    expect(r.body.transactionStatus).toBe('Refused');
    expect(r.body.events[1].resultMessage).toMatch(/insufficient funds/);
  });

  it('takes whole units for a currency without decimals (JPY)', async () => {
    const r = await h.call('POST', PROCESS, cardSale({ authorizationAmount: { amount: 1200, currency: 'JPY' } }));
    expect(r.status).toBe(200);
    expect(r.body.events[0].authorizationAmount).toEqual({ amount: 1200, currency: 'JPY' });
  });

  it('keeps the original clientDateTime and id of an offline upload; the decline rule applies too', async () => {
    const offlineAt = '2026-01-05T09:30:00Z';
    const sale = cardSale({
      offlineTransaction: true,
      clientDateTime: offlineAt,
      clientNewTransactionId: 'offline-0001',
    });
    const r = await h.call('POST', PROCESS, sale);
    expect(r.body).toMatchObject({ clientTransactionId: 'offline-0001', transactionStatus: 'Captured' });
    expect(r.body.events[0]).toMatchObject({ clientDateTime: offlineAt, offlineTransaction: true });
    const declined = await h.call(
      'POST',
      PROCESS,
      cardSale({ offlineTransaction: true, authorizationAmount: { amount: 151, currency: 'EUR' } }),
    );
    expect(declined.body.transactionStatus).toBe('Refused');
  });
});

describe('MOTO, manual key entry and online PIN', () => {
  const moto = (
    over: Record<string, unknown> = {},
    instrument: Record<string, unknown> = {},
  ): Record<string, unknown> =>
    cardSale({
      entryMode: 'Keyed',
      instrument: {
        instrumentType: 'card',
        paymentScenario: 'Moto',
        card: { maskedPan: '545454******5454', scheme: 'MASTERCARD', expiry: '0128' },
        ...instrument,
      },
      ...over,
    });

  it('refuses MOTO with entryMode ContactlessChip with a validation message and records nothing', async () => {
    const sale = moto({ entryMode: 'ContactlessChip' }, { email: 'buyer@example.com' });
    const r = await h.call('POST', PROCESS, sale);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('MOTO_ENTRY_MODE');
    expect(r.body.errorMessage).toMatch(/Keyed/);
    expect((await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`)).status).toBe(404);
    expect(h.platform.payments.ledger().some((e) => e.clientTransactionId === sale.clientNewTransactionId)).toBe(false);
  });

  it('accepts MOTO without address verification with an e-mail or a phone, and refuses it with neither', async () => {
    expect((await h.call('POST', PROCESS, moto({}, { email: 'buyer@example.com' }))).body.transactionStatus).toBe(
      'Captured',
    );
    expect((await h.call('POST', PROCESS, moto({}, { phone: '+49 30 1234567' }))).body.transactionStatus).toBe(
      'Captured',
    );
    const none = await h.call('POST', PROCESS, moto());
    expect(none.status).toBe(400);
    expect(none.body.errorMessage).toMatch(/email or instrument.phone/);
  });

  it('accepts MOTO with address verification only with orderChannel, zipCode and houseNumber together', async () => {
    const full = await h.call('POST', PROCESS, moto({ orderChannel: 'Phone', zipCode: '10115', houseNumber: '12a' }));
    expect(full.body.transactionStatus).toBe('Captured');
    expect(full.body.events[0].instrument.paymentScenario).toBe('Moto');
    const partial = await h.call('POST', PROCESS, moto({ orderChannel: 'Phone', zipCode: '10115' }));
    expect(partial.status).toBe(400);
    expect(partial.body.errorMessage).toMatch(/houseNumber/);
  });

  it('accepts manual key entry (Keyed without Moto)', async () => {
    const r = await h.call('POST', PROCESS, cardSale({ entryMode: 'Keyed' }));
    expect(r.body.transactionStatus).toBe('Captured');
    expect(r.body.events[0].entryMode).toBe('Keyed');
  });

  it('needs ksn, pinblock and pinblockFormat together for online PIN', async () => {
    const r = await h.call('POST', PROCESS, cardSale({ pinblock: '0412AC89ABCDEF12' }));
    expect(r.status).toBe(400);
    expect(r.body.errorMessage).toMatch(/ksn, pinblock and pinblockFormat/);
    expect(r.text).not.toContain('0412AC89ABCDEF12');
  });
});

describe('process validation and authentication', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown currency', { authorizationAmount: { amount: 100, currency: 'XYZ' } }, /currency/],
    ['a zero amount', { authorizationAmount: { amount: 0, currency: 'EUR' } }, /greater than zero/],
    ['a negative amount', { authorizationAmount: { amount: -5, currency: 'EUR' } }, /greater than zero/],
    ['a non-integer amount', { authorizationAmount: { amount: 12.5, currency: 'EUR' } }, /integer/],
    ['an amount as a string', { authorizationAmount: { amount: '1250', currency: 'EUR' } }, /amount/],
    ['a bad clientDateTime', { clientDateTime: 'yesterday' }, /clientDateTime/],
    ['a missing clientNewTransactionId', { clientNewTransactionId: undefined }, /clientNewTransactionId/],
    ['an unknown instrument type', { instrument: { instrumentType: 'cash' } }, /instrumentType/],
    ['a card sale without card', { instrument: { instrumentType: 'card' } }, /instrument.card/],
    ['a card sale without entryMode', { entryMode: undefined }, /entryMode/],
    [
      'a full, unmasked card number',
      { instrument: { instrumentType: 'card', card: { maskedPan: '4761739001010010', scheme: 'VISA' } } },
      /masked/,
    ],
  ];
  for (const [what, over, message] of cases) {
    it(`answers 400 {errorCode, errorMessage} for ${what}`, async () => {
      const r = await h.call('POST', PROCESS, cardSale(over));
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION_ERROR');
      expect(r.body.errorMessage).toMatch(message);
    });
  }

  it('does not echo a full card number in the error', async () => {
    const r = await h.call(
      'POST',
      PROCESS,
      cardSale({ instrument: { instrumentType: 'card', card: { maskedPan: '4761739001010010', scheme: 'VISA' } } }),
    );
    expect(r.text).not.toContain('4761739001010010');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const r = await h.call('POST', PROCESS, undefined);
    expect(r.status).toBe(400);
  });

  it('answers 401 without a token, with a bad token and with an expired one', async () => {
    expect((await h.call('POST', PROCESS, cardSale(), { token: null })).status).toBe(401);
    expect((await h.call('POST', PROCESS, cardSale(), { token: 'not-a-jwt' })).status).toBe(401);
    const expired = await h.call('POST', PROCESS, cardSale(), { token: h.token({ expiresInSeconds: -10 }) });
    expect(expired.status).toBe(401);
    expect(expired.body.errorCode).toBe('invalid_token');
  });

  it('answers 403 for a token of an unknown merchant or terminal', async () => {
    expect((await h.call('POST', PROCESS, cardSale(), { token: h.token({ merchantId: 'm-9999' }) })).status).toBe(403);
    expect((await h.call('POST', PROCESS, cardSale(), { token: h.token({ serial: 'TA-9999' }) })).status).toBe(403);
  });

  it('checks the token before the body', async () => {
    expect((await h.call('POST', PROCESS, { nonsense: true }, { token: null })).status).toBe(401);
  });
});

describe('idempotency and status', () => {
  it('answers a repeated clientNewTransactionId with the existing transaction and charges once', async () => {
    const sale = cardSale();
    const first = await h.call('POST', PROCESS, sale);
    const again = await h.call('POST', PROCESS, { ...sale, clientDateTime: new Date().toISOString() });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(h.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(1250);
    expect(
      h.platform.payments.ledger().filter((e) => e.clientTransactionId === sale.clientNewTransactionId),
    ).toHaveLength(1);
  });

  it('answers 409 for the same id with a different amount or instrument', async () => {
    const sale = cardSale();
    await h.call('POST', PROCESS, sale);
    const amount = await h.call('POST', PROCESS, { ...sale, authorizationAmount: { amount: 999, currency: 'EUR' } });
    expect(amount.status).toBe(409);
    expect(amount.body.errorCode).toBe('DUPLICATE_TRANSACTION_ID');
    const card = await h.call('POST', PROCESS, {
      ...sale,
      instrument: { instrumentType: 'card', card: { maskedPan: '545454******5454', scheme: 'MASTERCARD' } },
    });
    expect(card.status).toBe(409);
    const wallet = await h.call('POST', PROCESS, {
      ...sale,
      instrument: { instrumentType: 'walletA', paymentScenario: 'ConsumerScan' },
    });
    expect(wallet.status).toBe(409);
  });

  it('scopes client ids to the merchant', async () => {
    const sale = cardSale();
    const a = await h.call('POST', PROCESS, sale);
    const b = await h.call('POST', PROCESS, sale, { token: m1002() });
    expect(b.status).toBe(200);
    expect(b.body.serverTransactionId).not.toBe(a.body.serverTransactionId);
    expect(b.body.merchantId).toBe('m-1002');
    // m-1002 sees neither m-1001's server id nor, by client id, anything but its own.
    expect(
      (
        await h.call('GET', `/payment/v1/transactions/${a.body.serverTransactionId as string}`, undefined, {
          token: m1002(),
        })
      ).status,
    ).toBe(404);
    const own = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`, undefined, {
      token: m1002(),
    });
    expect(own.body.serverTransactionId).toBe(b.body.serverTransactionId);
  });

  it('answers the status by client id and by server id with all events, and 404 for an unknown id', async () => {
    const sale = cardSale();
    const created = await h.call('POST', PROCESS, sale);
    const byClient = await h.call('GET', `/payment/v1/transactions/${sale.clientNewTransactionId as string}`);
    const byServer = await h.call('GET', `/payment/v1/transactions/${created.body.serverTransactionId as string}`);
    expect(byClient.body).toEqual(created.body);
    expect(byServer.body).toEqual(created.body);
    const unknown = await h.call('GET', `/payment/v1/transactions/${newId('nope')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('TRANSACTION_NOT_FOUND');
  });
});

describe('reference data and availability', () => {
  it('answers isAvailable with 200', async () => {
    const r = await h.call('GET', '/payment/v1/transactions/technical/isAvailable');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ available: true });
  });

  it('answers the countries as {code, display} records', async () => {
    const r = await h.call('GET', '/resources/v1/countries');
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThan(10);
    for (const c of r.body) {
      expect(c.code).toMatch(/^[A-Z]{2}$/);
      expect(typeof c.display).toBe('string');
    }
    expect(r.body).toContainEqual({ code: 'DE', display: 'Germany' });
  });

  it('requires the Bearer token on reference data too', async () => {
    expect((await h.call('GET', '/resources/v1/countries', undefined, { token: null })).status).toBe(401);
  });
});
