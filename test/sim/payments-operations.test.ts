import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cardSale,
  DAY,
  isoNow,
  newId,
  SERVER_TIME,
  startPaymentsHarness,
  walletSale,
  type PaymentsHarness,
  type Reply,
} from './payment-endpoints.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness({ walletPayDelayMs: 0 });
});
afterEach(() => {
  // Back to the platform's own clock (real time plus the injected offset).
  h.platform.context.now = () => h.platform.faults.now();
  h.platform.faults.clockOffsetMs = 0;
});
afterAll(async () => {
  await h.close();
});

const base = '/payment/v1/transactions';
const m1002 = (): string => h.token({ merchantId: 'm-1002' });
const APPROVAL = { approvalCode: '4711' };
const eventTypes = (record: { events: Array<{ eventType: string }> }): string[] =>
  record.events.map((e) => e.eventType);
/** Freezes the platform clock at an exact instant (window boundaries to the second). */
const freezeClock = (at: string | number): void => {
  const t = typeof at === 'string' ? Date.parse(at) : at;
  h.platform.context.now = () => t;
};

async function sale(body: Record<string, unknown>, token?: string): Promise<Reply> {
  const r = await h.call('POST', `${base}/process`, body, token === undefined ? {} : { token });
  expect(r.status).toBe(200);
  return r;
}
/** A paid wallet payment of m-1001 (consumer scan, then the consumer pays). */
async function paidWallet(wallet: 'walletA' | 'walletB', amount = 2000): Promise<Reply> {
  const r = await sale(walletSale(wallet, 'ConsumerScan', { authorizationAmount: { amount, currency: 'EUR' } }));
  h.platform.payments.wallet.pay(r.body.serverTransactionId);
  return r;
}
const cancelBody = (
  amount: number,
  over: Record<string, unknown> = {},
  instrumentType = 'card',
): Record<string, unknown> => ({
  clientDateTime: isoNow(),
  channel: 'instore',
  cancelReason: 'Functional',
  cancelAmount: { amount, currency: 'EUR' },
  instrument: { instrumentType },
  ...over,
});
const refundBody = (
  amount: number,
  over: Record<string, unknown> = {},
  instrumentType = 'card',
): Record<string, unknown> => ({
  clientDateTime: isoNow(),
  channel: 'instore',
  clientNewTransactionId: newId('refund'),
  refundAmount: { amount, currency: 'EUR' },
  instrument: { instrumentType },
  ...over,
});
const captureBody = (amount: number, currency = 'EUR'): Record<string, unknown> => ({
  clientDateTime: isoNow(),
  channel: 'instore',
  captureAmount: { amount, currency },
});

describe('capture', () => {
  it('captures part of an authorization: Captured, cardCaptureResult, the rest released in the ledger', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const r = await h.call('POST', `${base}/${s.clientNewTransactionId as string}/capture`, captureBody(800), {
      token: m1002(),
    });
    expect(r.status).toBe(200);
    expect(r.body.transactionStatus).toBe('Captured');
    expect(eventTypes(r.body)).toEqual(['cardRequest', 'cardAuthorizationResult', 'cardCaptureResult']);
    expect(r.body.events[2]).toMatchObject({ captureAmount: { amount: 800, currency: 'EUR' }, result: 'Accepted' });
    expect(r.body.events[2].serverProcessingDateTime).toMatch(SERVER_TIME);
    const kinds = h.platform.payments
      .ledger()
      .filter((e) => e.paymentClientTransactionId === s.clientNewTransactionId)
      .map((e) => [e.kind, e.effect]);
    expect(kinds).toEqual([
      ['authorization', 1250],
      ['capture', 0],
      ['release', -450],
    ]);
    expect(h.platform.payments.netCharged(s.clientNewTransactionId as string, 'm-1002')).toBe(800);
  });

  it('answers a retried capture of the same amount with the captured transaction, and refuses another amount', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const path = `${base}/${s.clientNewTransactionId as string}/capture`;
    const first = await h.call('POST', path, captureBody(1250), { token: m1002() });
    const again = await h.call('POST', path, captureBody(1250), { token: m1002() });
    expect(again.body).toEqual(first.body);
    const other = await h.call('POST', path, captureBody(1000), { token: m1002() });
    expect(other.status).toBe(422);
    expect(other.body.errorCode).toBe('CAPTURE_NOT_ALLOWED');
    expect(h.platform.payments.netCharged(s.clientNewTransactionId as string, 'm-1002')).toBe(1250);
  });

  it('refuses more than authorized, another currency, a wallet payment and a refused sale', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const path = `${base}/${s.clientNewTransactionId as string}/capture`;
    expect((await h.call('POST', path, captureBody(1251), { token: m1002() })).body.errorCode).toBe('AMOUNT_EXCEEDS');
    expect((await h.call('POST', path, captureBody(1000, 'USD'), { token: m1002() })).body.errorCode).toBe(
      'CURRENCY_MISMATCH',
    );
    const w = await paidWallet('walletA');
    expect(
      (await h.call('POST', `${base}/${w.body.serverTransactionId as string}/capture`, captureBody(100))).status,
    ).toBe(422);
    const refused = await sale(cardSale({ authorizationAmount: { amount: 351, currency: 'EUR' } }), m1002());
    expect(
      (
        await h.call('POST', `${base}/${refused.body.serverTransactionId as string}/capture`, captureBody(351), {
          token: m1002(),
        })
      ).status,
    ).toBe(422);
    expect((await h.call('POST', `${base}/${newId()}/capture`, captureBody(1), { token: m1002() })).status).toBe(404);
    expect((await h.call('POST', path, { channel: 'instore' }, { token: m1002() })).status).toBe(400);
  });

  it('captureall captures every authorized card sale of the merchant and nothing else', async () => {
    const a = cardSale();
    const b = cardSale({ authorizationAmount: { amount: 990, currency: 'EUR' } });
    const refused = cardSale({ authorizationAmount: { amount: 451, currency: 'EUR' } });
    await sale(a, m1002());
    await sale(b, m1002());
    await sale(refused, m1002());
    const other = await sale(cardSale());
    const r = await h.call(
      'POST',
      `${base}/captureall`,
      { clientDateTime: isoNow(), channel: 'instore' },
      { token: m1002() },
    );
    expect(r.status).toBe(200);
    const ids = r.body.transactions.map((t: { clientTransactionId: string }) => t.clientTransactionId);
    expect(ids).toEqual(expect.arrayContaining([a.clientNewTransactionId, b.clientNewTransactionId]));
    expect(ids).not.toContain(refused.clientNewTransactionId);
    expect(ids).not.toContain(other.body.clientTransactionId);
    for (const t of r.body.transactions) {
      expect(t.transactionStatus).toBe('Captured');
      expect(t.merchantId).toBe('m-1002');
      expect(t.events.at(-1).eventType).toBe('cardCaptureResult');
    }
    expect(h.platform.payments.netCharged(b.clientNewTransactionId as string, 'm-1002')).toBe(990);
    const again = await h.call(
      'POST',
      `${base}/captureall`,
      { clientDateTime: isoNow(), channel: 'instore' },
      { token: m1002() },
    );
    expect(again.body).toEqual({ transactions: [] });
  });
});

describe('cancel', () => {
  it('requires the approval code where the aggregator demands it, and checks it', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const path = `${base}/${s.clientNewTransactionId as string}/cancel`;
    const missing = await h.call('POST', path, cancelBody(1250), { token: m1002() });
    expect(missing.status).toBe(400);
    expect(missing.body.errorCode).toBe('APPROVAL_CODE_REQUIRED');
    const wrong = await h.call('POST', path, cancelBody(1250, { approvalCode: '0000' }), { token: m1002() });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorCode).toBe('APPROVAL_CODE_INVALID');
    expect(wrong.text).not.toContain('4711');
    expect((await h.call('POST', path, cancelBody(1250, APPROVAL), { token: m1002() })).status).toBe(200);
  });

  it('voids an authorization: a Cancel record, the payment cancelled, nothing charged; a retry answers the same Cancel', async () => {
    const s = cardSale();
    const created = await sale(s, m1002());
    const path = `${base}/${created.body.serverTransactionId as string}/cancel`;
    const r = await h.call('POST', path, cancelBody(1250, APPROVAL), { token: m1002() });
    expect(r.body).toMatchObject({
      transactionType: 'Cancel',
      relatedServerTransactionId: created.body.serverTransactionId,
      transactionStatus: 'cancelled',
      merchantId: 'm-1002',
    });
    expect(eventTypes(r.body)).toEqual(['cancelRequest', 'cardCancelResult']);
    expect(r.body.events[0]).toMatchObject({
      cancelAmount: { amount: 1250, currency: 'EUR' },
      cancelReason: 'Functional',
      instrument: { instrumentType: 'card' },
    });
    expect(r.body.events[1]).toMatchObject({ result: 'Accepted', resultMessage: 'Voided' });
    const original = await h.call('GET', `${base}/${s.clientNewTransactionId as string}`, undefined, {
      token: m1002(),
    });
    expect(original.body.transactionStatus).toBe('cancelled');
    const again = await h.call('POST', path, cancelBody(1250, { ...APPROVAL, cancelReason: 'Technical' }), {
      token: m1002(),
    });
    expect(again.status).toBe(200);
    expect(again.body.serverTransactionId).toBe(r.body.serverTransactionId);
    expect(h.platform.payments.netCharged(s.clientNewTransactionId as string, 'm-1002')).toBe(0);
    expect(
      h.platform.payments
        .ledger()
        .filter((e) => e.paymentClientTransactionId === s.clientNewTransactionId)
        .map((e) => e.kind),
    ).toEqual(['authorization', 'cancel']);
  });

  it('books a Technical cancel as a reversal', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const r = await h.call(
      'POST',
      `${base}/${s.clientNewTransactionId as string}/cancel`,
      cancelBody(1250, { ...APPROVAL, cancelReason: 'Technical' }),
      { token: m1002() },
    );
    expect(r.body.events[1].resultMessage).toBe('Reversed');
    expect(
      h.platform.payments
        .ledger()
        .filter((e) => e.paymentClientTransactionId === s.clientNewTransactionId)
        .map((e) => e.kind),
    ).toEqual(['authorization', 'reversal']);
  });

  it('refuses to cancel a captured transaction (refund instead)', async () => {
    const immediate = await sale(cardSale());
    const r = await h.call('POST', `${base}/${immediate.body.serverTransactionId as string}/cancel`, cancelBody(1250));
    expect(r.status).toBe(422);
    expect(r.body.errorCode).toBe('CANCEL_NOT_ALLOWED');
    expect(r.body.errorMessage).toMatch(/refund/);
    const s = cardSale();
    await sale(s, m1002());
    await h.call('POST', `${base}/${s.clientNewTransactionId as string}/capture`, captureBody(1250), {
      token: m1002(),
    });
    expect(
      (
        await h.call('POST', `${base}/${s.clientNewTransactionId as string}/cancel`, cancelBody(1250, APPROVAL), {
          token: m1002(),
        })
      ).status,
    ).toBe(422);
  });

  it('refuses a partial cancel where the acquirer does not allow it', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const r = await h.call('POST', `${base}/${s.clientNewTransactionId as string}/cancel`, cancelBody(500, APPROVAL), {
      token: m1002(),
    });
    expect(r.status).toBe(422);
    expect(r.body.errorCode).toBe('PARTIAL_CANCEL_NOT_ALLOWED');
  });

  it('cancels a paid walletA payment in part where allowed, keeping the rest, then the rest', async () => {
    const w = await paidWallet('walletA');
    const path = `${base}/${w.body.serverTransactionId as string}/cancel`;
    const part = await h.call('POST', path, cancelBody(500, {}, 'walletA'));
    expect(part.body.transactionStatus).toBe('cancelled');
    expect(eventTypes(part.body)).toEqual(['cancelRequest', 'walletACancelResult']);
    expect((await h.call('GET', `${base}/${w.body.serverTransactionId as string}`)).body.transactionStatus).toBe(
      'Accepted',
    );
    expect((await h.call('POST', path, cancelBody(1600, {}, 'walletA'))).body.errorCode).toBe('AMOUNT_EXCEEDS');
    const rest = await h.call('POST', path, cancelBody(1500, {}, 'walletA'));
    expect(rest.status).toBe(200);
    expect(rest.body.serverTransactionId).not.toBe(part.body.serverTransactionId);
    expect((await h.call('GET', `${base}/${w.body.serverTransactionId as string}`)).body.transactionStatus).toBe(
      'cancelled',
    );
    expect(h.platform.payments.netCharged(w.body.clientTransactionId)).toBe(0);
  });

  it('cancels only what a refund left of a paid wallet payment: never more back than was paid', async () => {
    const w = await paidWallet('walletA');
    const id = w.body.serverTransactionId as string;
    expect((await h.call('POST', `${base}/${id}/refund`, refundBody(1500, {}, 'walletA'))).status).toBe(200);
    const tooMuch = await h.call('POST', `${base}/${id}/cancel`, cancelBody(2000, {}, 'walletA'));
    expect(tooMuch.body.errorCode).toBe('AMOUNT_EXCEEDS');
    expect((await h.call('GET', `${base}/${id}/allowedoperations?operation=cancel`)).body.maxAmount).toBe(500);
    expect((await h.call('POST', `${base}/${id}/cancel`, cancelBody(500, {}, 'walletA'))).status).toBe(200);
    expect((await h.call('GET', `${base}/${id}`)).body.transactionStatus).toBe('cancelled');
    expect((await h.call('POST', `${base}/${id}/refund`, refundBody(1, {}, 'walletA'))).status).toBe(422);
    expect(h.platform.payments.netCharged(w.body.clientTransactionId)).toBe(0);
    const refunded = await paidWallet('walletB');
    await h.call(
      'POST',
      `${base}/${refunded.body.serverTransactionId as string}/refund`,
      refundBody(2000, {}, 'walletB'),
    );
    const ops = await h.call('GET', `${base}/${refunded.body.serverTransactionId as string}/allowedoperations`);
    expect(ops.body.operations.cancel).toEqual({ allowed: false, maxAmount: 0, currency: 'EUR' });
    expect(ops.body.operations.refund).toEqual({ allowed: false, maxAmount: 0, currency: 'EUR' });
  });

  it('cancels a pending wallet payment in full: nothing charged, the provider no longer pays it', async () => {
    const w = await sale(walletSale('walletB', 'ConsumerScan'));
    const r = await h.call(
      'POST',
      `${base}/${w.body.clientTransactionId as string}/cancel`,
      cancelBody(2000, {}, 'walletB'),
    );
    expect(r.status).toBe(200);
    expect(eventTypes(r.body)).toEqual(['cancelRequest', 'walletBCancelResult']);
    expect((await h.call('POST', `/sim/control/wallet/${w.body.serverTransactionId as string}/pay`)).status).toBe(409);
    expect(h.platform.payments.netCharged(w.body.clientTransactionId)).toBe(0);
    expect(
      h.platform.payments.ledger().filter((e) => e.paymentClientTransactionId === w.body.clientTransactionId),
    ).toEqual([]);
  });

  it('refuses another instrument type or currency than the payment', async () => {
    const w = await paidWallet('walletA');
    const path = `${base}/${w.body.serverTransactionId as string}/cancel`;
    expect((await h.call('POST', path, cancelBody(2000, {}, 'walletB'))).body.errorCode).toBe('INSTRUMENT_MISMATCH');
    expect(
      (await h.call('POST', path, cancelBody(2000, { cancelAmount: { amount: 2000, currency: 'USD' } }, 'walletA')))
        .body.errorCode,
    ).toBe('CURRENCY_MISMATCH');
    expect((await h.call('POST', path, cancelBody(2000, { cancelReason: 'Because' }, 'walletA'))).status).toBe(400);
  });

  it('recognises a cancel retried with the same clientNewTransactionId; another amount under that id is a conflict', async () => {
    const w = await paidWallet('walletA');
    const path = `${base}/${w.body.serverTransactionId as string}/cancel`;
    const id = newId('cancel');
    const first = await h.call('POST', path, cancelBody(300, { clientNewTransactionId: id }, 'walletA'));
    expect(first.body.clientTransactionId).toBe(id);
    const again = await h.call('POST', path, cancelBody(300, { clientNewTransactionId: id }, 'walletA'));
    expect(again.body.serverTransactionId).toBe(first.body.serverTransactionId);
    expect((await h.call('POST', path, cancelBody(400, { clientNewTransactionId: id }, 'walletA'))).status).toBe(409);
    expect(h.platform.payments.netCharged(w.body.clientTransactionId)).toBe(1700);
  });
});

describe('cancel and refund windows', () => {
  it('walletA: cancel possible at 00:14:59 UTC+8 the next day, not at 00:15:00', async () => {
    freezeClock('2026-03-10T23:50:00+08:00');
    const w1 = await paidWallet('walletA');
    const w2 = await paidWallet('walletA');
    freezeClock('2026-03-11T00:14:59+08:00');
    const ok = await h.call(
      'POST',
      `${base}/${w1.body.serverTransactionId as string}/cancel`,
      cancelBody(2000, {}, 'walletA'),
    );
    expect(ok.status).toBe(200);
    freezeClock('2026-03-11T00:15:00+08:00');
    const late = await h.call(
      'POST',
      `${base}/${w2.body.serverTransactionId as string}/cancel`,
      cancelBody(2000, {}, 'walletA'),
    );
    expect(late.status).toBe(422);
    expect(late.body.errorCode).toBe('CANCEL_WINDOW_CLOSED');
    // After the window a refund is the way back.
    const refund = await h.call(
      'POST',
      `${base}/${w2.body.serverTransactionId as string}/refund`,
      refundBody(2000, {}, 'walletA'),
    );
    expect(refund.status).toBe(200);
  });

  it('walletA: a sale just after midnight UTC+8 can be cancelled until 00:15 of the following day', async () => {
    freezeClock('2026-03-11T00:05:00+08:00');
    const w = await paidWallet('walletA');
    freezeClock('2026-03-11T23:59:00+08:00');
    expect(
      (await h.call('GET', `${base}/${w.body.serverTransactionId as string}/allowedoperations?operation=cancel`)).body
        .allowed,
    ).toBe(true);
    freezeClock('2026-03-12T00:15:00+08:00');
    expect(
      (await h.call('GET', `${base}/${w.body.serverTransactionId as string}/allowedoperations?operation=cancel`)).body
        .allowed,
    ).toBe(false);
  });

  it('walletB: cancel during the first 24 hours; at 24 hours exactly it is refused', async () => {
    const t0 = Date.parse('2026-05-01T10:00:00Z');
    freezeClock(t0);
    const w1 = await paidWallet('walletB');
    const w2 = await paidWallet('walletB');
    freezeClock(t0 + DAY - 1000);
    expect(
      (await h.call('POST', `${base}/${w1.body.serverTransactionId as string}/cancel`, cancelBody(2000, {}, 'walletB')))
        .status,
    ).toBe(200);
    freezeClock(t0 + DAY);
    const late = await h.call(
      'POST',
      `${base}/${w2.body.serverTransactionId as string}/cancel`,
      cancelBody(2000, {}, 'walletB'),
    );
    expect(late.status).toBe(422);
    expect(late.body.errorCode).toBe('CANCEL_WINDOW_CLOSED');
  });

  it('walletB: refund up to 180 days after the sale; at 180 days it is refused', async () => {
    const t0 = Date.parse('2026-01-15T08:00:00Z');
    freezeClock(t0);
    const w = await paidWallet('walletB');
    freezeClock(t0 + 180 * DAY - 1000);
    const path = `${base}/${w.body.serverTransactionId as string}/refund`;
    expect((await h.call('POST', path, refundBody(1000, {}, 'walletB'))).status).toBe(200);
    freezeClock(t0 + 180 * DAY);
    const late = await h.call('POST', path, refundBody(1000, {}, 'walletB'));
    expect(late.status).toBe(422);
    expect(late.body.errorCode).toBe('REFUND_WINDOW_CLOSED');
  });

  it('walletB: the windows follow the clock offset too', async () => {
    const w = await paidWallet('walletB');
    h.platform.faults.clockOffsetMs = DAY + 60_000;
    const r = await h.call(
      'POST',
      `${base}/${w.body.serverTransactionId as string}/cancel`,
      cancelBody(2000, {}, 'walletB'),
    );
    expect(r.body.errorCode).toBe('CANCEL_WINDOW_CLOSED');
  });
});

describe('refund', () => {
  it('refunds a captured card sale in parts, up to what was captured; more is refused', async () => {
    const s = cardSale();
    await sale(s);
    const path = `${base}/${s.clientNewTransactionId as string}/refund`;
    const first = await h.call('POST', path, refundBody(500));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      transactionType: 'Refund',
      transactionStatus: 'Accepted',
      merchantId: 'm-1001',
    });
    expect(eventTypes(first.body)).toEqual(['cardRefundRequest', 'cardRefundResult']);
    const result = first.body.events[1];
    expect(result).toMatchObject({
      result: 'Accepted',
      refundAmount: { amount: 500, currency: 'EUR' },
      resultData: { acquirerId: 'acq-01' },
    });
    expect(typeof result.refundId).toBe('string');
    expect(result.refundTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    expect((await h.call('POST', path, refundBody(700))).status).toBe(200);
    const over = await h.call('POST', path, refundBody(100));
    expect(over.status).toBe(422);
    expect(over.body.errorCode).toBe('AMOUNT_EXCEEDS');
    expect((await h.call('POST', path, refundBody(50))).status).toBe(200);
    expect((await h.call('POST', path, refundBody(1))).body.errorCode).toBe('REFUND_NOT_ALLOWED');
    expect(h.platform.payments.netCharged(s.clientNewTransactionId as string)).toBe(0);
  });

  it('answers a repeated refund id with the same Refund; another amount under that id is a conflict', async () => {
    const s = cardSale();
    await sale(s);
    const path = `${base}/${s.clientNewTransactionId as string}/refund`;
    const body = refundBody(400);
    const first = await h.call('POST', path, body);
    const again = await h.call('POST', path, body);
    expect(again.body).toEqual(first.body);
    const conflict = await h.call('POST', path, { ...body, refundAmount: { amount: 401, currency: 'EUR' } });
    expect(conflict.status).toBe(409);
    expect(h.platform.payments.netCharged(s.clientNewTransactionId as string)).toBe(850);
    // The refund is found by its own ids too.
    expect((await h.call('GET', `${base}/${body.clientNewTransactionId as string}`)).body.transactionType).toBe(
      'Refund',
    );
  });

  it('walletA refund carries refundTime with the +08:00 offset and acquirerId and pspId', async () => {
    const w = await paidWallet('walletA');
    const r = await h.call(
      'POST',
      `${base}/${w.body.serverTransactionId as string}/refund`,
      refundBody(2000, {}, 'walletA'),
    );
    expect(r.body.relatedServerTransactionId).toBe(w.body.serverTransactionId);
    expect(eventTypes(r.body)).toEqual(['walletARefundRequest', 'walletARefundResult']);
    expect(r.body.events[1].refundTime).toMatch(/\+08:00$/);
    expect(r.body.events[1].resultData).toEqual({ acquirerId: 'acq-01', pspId: expect.any(String) });
  });

  it('walletB refund request carries the fee split as {currency_code, value}', async () => {
    const w = await paidWallet('walletB');
    const r = await h.call(
      'POST',
      `${base}/${w.body.serverTransactionId as string}/refund`,
      refundBody(1000, {}, 'walletB'),
    );
    expect(eventTypes(r.body)).toEqual(['walletBRefundRequest', 'walletBRefundResult']);
    const request = r.body.events[0];
    expect(request.gross_walletB).toEqual({ currency_code: 'EUR', value: '10.00' });
    for (const f of ['fee_walletB', 'partner_fee', 'net_amount', 'total_merchant'])
      expect(request[f]).toMatchObject({ currency_code: 'EUR', value: expect.stringMatching(/^\d+\.\d{2}$/) });
    expect(r.body.events[1].resultData).toEqual({ acquirerId: 'acq-01' });
  });

  it('refuses to refund an uncaptured card sale (cancel instead), a pending wallet payment and a refund', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const notCaptured = await h.call(
      'POST',
      `${base}/${s.clientNewTransactionId as string}/refund`,
      refundBody(100, APPROVAL),
      { token: m1002() },
    );
    expect(notCaptured.status).toBe(422);
    expect(notCaptured.body.errorMessage).toMatch(/cancel/);
    const pending = await sale(walletSale('walletA', 'ConsumerScan'));
    expect(
      (
        await h.call(
          'POST',
          `${base}/${pending.body.serverTransactionId as string}/refund`,
          refundBody(100, {}, 'walletA'),
        )
      ).status,
    ).toBe(422);
    const captured = await sale(cardSale());
    const refund = await h.call(
      'POST',
      `${base}/${captured.body.serverTransactionId as string}/refund`,
      refundBody(100),
    );
    expect(
      (await h.call('POST', `${base}/${refund.body.serverTransactionId as string}/refund`, refundBody(100))).status,
    ).toBe(422);
  });

  it('requires the approval code for a refund of a supervised merchant', async () => {
    const s = cardSale();
    await sale(s, m1002());
    await h.call('POST', `${base}/${s.clientNewTransactionId as string}/capture`, captureBody(1250), {
      token: m1002(),
    });
    const path = `${base}/${s.clientNewTransactionId as string}/refund`;
    expect((await h.call('POST', path, refundBody(100), { token: m1002() })).body.errorCode).toBe(
      'APPROVAL_CODE_REQUIRED',
    );
    expect(
      (await h.call('POST', path, refundBody(100, { approvalCode: '1234' }), { token: m1002() })).body.errorCode,
    ).toBe('APPROVAL_CODE_INVALID');
    expect((await h.call('POST', path, refundBody(100, APPROVAL), { token: m1002() })).status).toBe(200);
  });
});

describe('allowed operations', () => {
  it('answers cancel (with all three operations) for an authorization, and each by ?operation=', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const path = `${base}/${s.clientNewTransactionId as string}/allowedoperations`;
    const all = await h.call('GET', path, undefined, { token: m1002() });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      allowed: true,
      maxAmount: 1250,
      currency: 'EUR',
      operation: 'cancel',
      operations: {
        cancel: { allowed: true, maxAmount: 1250, currency: 'EUR' },
        refund: { allowed: false, maxAmount: 0, currency: 'EUR' },
        capture: { allowed: true, maxAmount: 1250, currency: 'EUR' },
      },
    });
    expect((await h.call('GET', `${path}?operation=refund`, undefined, { token: m1002() })).body).toEqual({
      allowed: false,
      maxAmount: 0,
      currency: 'EUR',
    });
    expect((await h.call('GET', `${path}?operation=capture`, undefined, { token: m1002() })).body).toEqual({
      allowed: true,
      maxAmount: 1250,
      currency: 'EUR',
    });
    expect((await h.call('GET', `${path}?operation=steal`, undefined, { token: m1002() })).status).toBe(400);
  });

  it('answers refund with what is left after partial refunds for a captured sale', async () => {
    const s = await sale(cardSale());
    const path = `${base}/${s.body.serverTransactionId as string}`;
    await h.call('POST', `${path}/refund`, refundBody(500));
    const r = await h.call('GET', `${path}/allowedoperations`);
    expect(r.body).toMatchObject({ operation: 'refund', allowed: true, maxAmount: 750, currency: 'EUR' });
    expect(r.body.operations.cancel.allowed).toBe(false);
    expect(r.body.operations.capture.allowed).toBe(false);
  });

  it('turns from cancel to refund when the walletB cancel window closes', async () => {
    const w = await paidWallet('walletB');
    const path = `${base}/${w.body.serverTransactionId as string}/allowedoperations`;
    expect((await h.call('GET', path)).body.operation).toBe('cancel');
    h.platform.faults.clockOffsetMs = DAY + 1000;
    expect((await h.call('GET', path)).body).toMatchObject({ operation: 'refund', allowed: true, maxAmount: 2000 });
  });

  it('answers 404 for an unknown transaction', async () => {
    expect((await h.call('GET', `${base}/${newId()}/allowedoperations`)).status).toBe(404);
  });
});

describe('refund by web', () => {
  const byWeb = (amount: number, id = newId('web')): Record<string, unknown> => ({
    clientDateTime: isoNow(),
    clientNewTransactionId: id,
    amount: { amount, currency: 'EUR' },
  });

  it('cancels while the payment can be cancelled, without an approval code', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const body = byWeb(1250);
    const r = await h.call('POST', `${base}/${s.clientNewTransactionId as string}/refundbyweb`, body, {
      token: m1002(),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      transactionType: 'Cancel',
      clientTransactionId: body.clientNewTransactionId,
      transactionStatus: 'cancelled',
    });
    const again = await h.call('POST', `${base}/${s.clientNewTransactionId as string}/refundbyweb`, body, {
      token: m1002(),
    });
    expect(again.body.serverTransactionId).toBe(r.body.serverTransactionId);
    expect(h.platform.payments.netCharged(s.clientNewTransactionId as string, 'm-1002')).toBe(0);
  });

  it('refunds once the payment is captured; the same id with another amount is a conflict', async () => {
    const s = await sale(cardSale());
    const body = byWeb(300);
    const r = await h.call('POST', `${base}/${s.body.serverTransactionId as string}/refundbyweb`, body);
    expect(r.body).toMatchObject({
      transactionType: 'Refund',
      transactionStatus: 'Accepted',
      clientTransactionId: body.clientNewTransactionId,
    });
    const conflict = await h.call('POST', `${base}/${s.body.serverTransactionId as string}/refundbyweb`, {
      ...body,
      amount: { amount: 301, currency: 'EUR' },
    });
    expect(conflict.status).toBe(409);
  });

  it('refunds a walletB payment after its cancel window', async () => {
    const w = await paidWallet('walletB');
    h.platform.faults.clockOffsetMs = 2 * DAY;
    const r = await h.call('POST', `${base}/${w.body.serverTransactionId as string}/refundbyweb`, byWeb(2000));
    expect(r.body.transactionType).toBe('Refund');
  });

  it('refuses a partial amount where neither a partial cancel nor a refund is possible', async () => {
    const s = cardSale();
    await sale(s, m1002());
    const r = await h.call('POST', `${base}/${s.clientNewTransactionId as string}/refundbyweb`, byWeb(100), {
      token: m1002(),
    });
    expect(r.status).toBe(422);
    expect(r.body.errorCode).toBe('PARTIAL_CANCEL_NOT_ALLOWED');
  });
});
