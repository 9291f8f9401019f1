import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cardSale,
  isoNow,
  newId,
  startPaymentsHarness,
  walletSale,
  type PaymentsHarness,
} from './payment-endpoints.js';

/**
 * The strict profile's request checks (docs/demo-platform.md, "Demo platform"): only the
 * fields the contract names plus the placements docs/platform-contract.md records, no
 * query parameters, the bare allowed-operations record, and no memory of a repeated
 * cancel. The standard profile keeps tolerating (checked here against the same requests).
 */
let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness({ walletPayDelayMs: 0, profile: 'strict' });
});
afterEach(() => {
  h.platform.context.profile.set('strict');
});
afterAll(async () => {
  await h.close();
});

const base = '/payment/v1/transactions';
const m1002 = (): string => h.token({ merchantId: 'm-1002' });
const cancelBody = (amount: number, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  clientDateTime: isoNow(),
  channel: 'instore',
  cancelReason: 'Functional',
  cancelAmount: { amount, currency: 'EUR' },
  instrument: { instrumentType: 'card' },
  ...over,
});
const keyed = (
  over: Record<string, unknown> = {},
  instrument: Record<string, unknown> = {},
): Record<string, unknown> => {
  const sale = cardSale({ entryMode: 'Keyed', ...over });
  return { ...sale, instrument: { ...(sale.instrument as Record<string, unknown>), ...instrument } };
};

describe('strict: request bodies carry only the contract', () => {
  it('MOTO without a marker: keyed with e-mail or phone, or with orderChannel, zipCode and houseNumber', async () => {
    expect((await h.call('POST', `${base}/process`, keyed({}, { email: 'c@example.com' }))).status).toBe(200);
    expect(
      (await h.call('POST', `${base}/process`, keyed({ orderChannel: 'phone', zipCode: '10115', houseNumber: '12' })))
        .status,
    ).toBe(200);
    // The contact or address fields make it MOTO: not keyed, it is not processed.
    const chip = await h.call(
      'POST',
      `${base}/process`,
      cardSale({ instrument: { ...(cardSale().instrument as object), phone: '+4930123' } }),
    );
    expect(chip).toMatchObject({ status: 400, body: { errorCode: 'MOTO_ENTRY_MODE' } });
  });

  it('an invented field is a 400 naming it, at any depth; standard drops it', async () => {
    const moto = await h.call(
      'POST',
      `${base}/process`,
      keyed({}, { paymentScenario: 'Moto', email: 'c@example.com' }),
    );
    expect(moto.status).toBe(400);
    expect(moto.body.errorMessage).toMatch(/instrument\.paymentScenario/);
    const extra = await h.call('POST', `${base}/process`, cardSale({ tip: 1 }));
    expect(extra).toMatchObject({ status: 400 });
    expect(extra.body.errorMessage).toMatch(/tip/);
    const deep = await h.call(
      'POST',
      `${base}/process`,
      cardSale({ authorizationAmount: { amount: 100, currency: 'EUR', value: '1.00' } }),
    );
    expect(deep.body.errorMessage).toMatch(/authorizationAmount.*value/);
    h.platform.context.profile.set('standard');
    expect((await h.call('POST', `${base}/process`, cardSale({ tip: 1 }))).status).toBe(200);
    expect(
      (await h.call('POST', `${base}/process`, keyed({}, { paymentScenario: 'Moto', email: 'c@example.com' }))).status,
    ).toBe(200);
  });

  it('a cancel body with a clientNewTransactionId is refused; the contract body is accepted', async () => {
    const sale = cardSale({ authorizationAmount: { amount: 700, currency: 'EUR' } });
    expect((await h.call('POST', `${base}/process`, sale, { token: m1002() })).status).toBe(200);
    const path = `${base}/${sale.clientNewTransactionId as string}/cancel`;
    const withId = await h.call(
      'POST',
      path,
      cancelBody(700, { approvalCode: '4711', clientNewTransactionId: newId('cancel') }),
      { token: m1002() },
    );
    expect(withId.status).toBe(400);
    expect(withId.body.errorMessage).toMatch(/clientNewTransactionId/);
    const ok = await h.call('POST', path, cancelBody(700, { approvalCode: '4711' }), { token: m1002() });
    // Strict answers the cancel of a charged payment `cancelled` before its result event (which comes a little later).
    expect(ok).toMatchObject({ status: 200, body: { transactionType: 'Cancel', transactionStatus: 'cancelled' } });
    expect((ok.body.events as Array<{ eventType: unknown }>).map((e) => e.eventType)).not.toContain('cardCancelResult');
  });

  it('every cancel is new: the same cancel sent again after it was done is refused, not answered with the earlier Cancel', async () => {
    const sale = cardSale({ authorizationAmount: { amount: 900, currency: 'EUR' } });
    await h.call('POST', `${base}/process`, sale, { token: m1002() });
    const path = `${base}/${sale.clientNewTransactionId as string}/cancel`;
    const body = cancelBody(900, { approvalCode: '4711' });
    expect((await h.call('POST', path, body, { token: m1002() })).status).toBe(200);
    expect((await h.call('POST', path, body, { token: m1002() })).status).toBe(422);
  });

  it("a cancel is written into the payment's own history with the client's clientDateTime and amount", async () => {
    const sale = walletSale('walletA', 'MerchantScan', { authorizationAmount: { amount: 3_000, currency: 'EUR' } });
    await h.call('POST', `${base}/process`, sale);
    const sent = isoNow();
    const cancel = await h.call('POST', `${base}/${sale.clientNewTransactionId as string}/cancel`, {
      ...cancelBody(1_000, { clientDateTime: sent }),
      instrument: { instrumentType: 'walletA' },
    });
    // Strict completes the cancel of a charged payment later; the control call completes it now.
    expect(
      (await h.call('POST', `/sim/control/transactions/${cancel.body.serverTransactionId as string}/complete`)).status,
    ).toBeLessThan(300);
    const status = await h.call('GET', `${base}/${sale.clientNewTransactionId as string}`);
    const events = status.body.events as Array<Record<string, unknown>>;
    expect(events.slice(-2)).toMatchObject([
      {
        eventType: 'cancelRequest',
        clientDateTime: sent,
        cancelAmount: { amount: 1_000, currency: 'EUR' },
        cancelReason: 'Functional',
      },
      { eventType: 'walletACancelResult', result: 'Accepted' },
    ]);
  });
});

describe('strict: queries and allowed operations', () => {
  it('allowed operations answer exactly {allowed, maxAmount, currency}; a query parameter is a 400', async () => {
    const sale = cardSale();
    await h.call('POST', `${base}/process`, sale, { token: m1002() });
    const path = `${base}/${sale.clientNewTransactionId as string}/allowedoperations`;
    const bare = await h.call('GET', path, undefined, { token: m1002() });
    expect(bare).toMatchObject({ status: 200 });
    // The contract's record and one field no agent knows (the answer side of the strict profile).
    expect(bare.body).toEqual({ allowed: true, maxAmount: 1250, currency: 'EUR', evaluatedRules: expect.any(Array) });
    expect((await h.call('GET', `${path}?operation=cancel`, undefined, { token: m1002() })).status).toBe(400);
    expect(
      (await h.call('GET', `${base}/${sale.clientNewTransactionId as string}?verbose=1`, undefined, { token: m1002() }))
        .status,
    ).toBe(400);
    h.platform.context.profile.set('standard');
    const standard = await h.call('GET', `${path}?operation=capture`, undefined, { token: m1002() });
    expect(standard.body).toEqual({ allowed: true, maxAmount: 1250, currency: 'EUR' });
  });
});
