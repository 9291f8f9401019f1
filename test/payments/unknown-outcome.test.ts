import { describe, expect, it } from 'vitest';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { immediateCaptureStatus } from '../helpers/demo-platform.js';

const fixture = useDemoPlatform();
let t: Terminal;

const ledgerOf = (id: string) =>
  fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);

describe('unknown outcome of a sale', () => {
  it('the journal row (in_flight, with the card data) exists before the request leaves; dropped before the platform recorded it: did not happen', async () => {
    const seen: Array<{ state?: string; hasCard: boolean }> = [];
    t = await fixture.startTerminal({
      wrap: (p) =>
        ({
          ...bind(p),
          process: (body, opts) => {
            const row = t.journal.get(body.clientNewTransactionId);
            seen.push({
              ...(row?.state !== undefined ? { state: row.state } : {}),
              hasCard: row?.cardSecret?.encryptedData === body.instrument.card?.encryptedData,
            });
            return p.process(body, opts);
          },
        }) satisfies PaymentsPlatform,
    });
    fixture.demo.platform.faults.set('process', { drop: 'before', times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR' });
    const view = await started.done;
    expect(seen).toEqual([{ state: 'in_flight', hasCard: true }]);
    expect(view).toMatchObject({
      state: 'failed',
      message: 'the platform has no record of this sale: nothing was charged',
    });
    expect(ledgerOf(started.clientTransactionId)).toEqual([]);
    expect(t.service.row(started.clientTransactionId)?.cardSecret).toBeUndefined();
  });

  it('answer lost after the platform recorded the sale: looked up by client id and adopted, charged once', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'approved', platformStatus: immediateCaptureStatus(), capturedAmount: 2_000 });
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
  });

  it('a 5xx after the platform recorded the sale: adopted; a 5xx before: did not happen', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('process', { status: 503, afterRecord: true, times: 1 });
    const a = await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR' });
    expect((await a.done).state).toBe('approved');
    fixture.demo.platform.faults.set('process', { status: 502, times: 1 });
    const b = await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR' });
    expect(await b.done).toMatchObject({ state: 'failed', message: /no record of this sale/ });
    expect(fixture.demo.platform.payments.netCharged(a.clientTransactionId)).toBe(3_000);
    expect(ledgerOf(b.clientTransactionId)).toEqual([]);
  });

  it('a timeout (latency fault): the journal ends as the platform ends, charged once or not at all', async () => {
    // Whether the platform still records a request the client gave up on depends on when the
    // connection closes relative to its work; either way the journal must agree with the ledger.
    t = await fixture.startTerminal({ headersTimeoutMs: 300, config: { payments: { lookupGraceMs: 3_000 } } });
    fixture.demo.platform.faults.set('process', { latencyMs: 900, times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 4_000, currency: 'EUR' });
    const done = await started.done;
    // Past the fault's 900 ms latency: whether the platform records the request it still works on
    // shows only once that time has passed; there is no event to await for a charge that may never come.
    await new Promise((r) => setTimeout(r, 700));
    const ledger = ledgerOf(started.clientTransactionId);
    if (done.state === 'approved') expect(ledger.map((l) => l.kind)).toEqual(['sale']);
    else {
      expect(done).toMatchObject({ state: 'failed', message: /no record of this sale: nothing was charged/ });
      expect(ledger).toEqual([]);
    }
  });

  it('a request still on its way when the timeout fires: "not found" is looked at again and the late sale adopted', async () => {
    t = await fixture.startTerminal({
      config: { payments: { lookupGraceMs: 5_000 } },
      wrap: (p) => ({
        ...bind(p),
        process: (body, opts) => {
          // The request reaches the platform 400 ms after the terminal gave up on it.
          setTimeout(() => void p.process(body, opts).catch(() => {}), 400);
          return Promise.reject(
            new PlatformError('did not answer in time', {
              category: 'timeout',
              operation: 'process',
              method: 'POST',
              outcomeUnknown: true,
            }),
          );
        },
      }),
    });
    const started = await t.service.startSale({ method: 'card', amount: 4_100, currency: 'EUR' });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'approved', capturedAmount: 4_100 });
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
  });

  it('a reversal answered "not found" while the sale is still on its way is retried: the late sale is reversed, never left charged', async () => {
    t = await fixture.startTerminal({
      config: { payments: { lookupGraceMs: 1_500 } },
      wrap: (p) => ({
        ...bind(p),
        process: (body, opts) => {
          // The request reaches the platform 600 ms after the terminal gave up on it.
          setTimeout(() => void p.process(body, opts).catch(() => {}), 600);
          return Promise.reject(
            new PlatformError('did not answer in time', {
              category: 'timeout',
              operation: 'process',
              method: 'POST',
              outcomeUnknown: true,
            }),
          );
        },
      }),
    });
    // The lookup fails (the client's GET retries included), so the sale is reversed at once,
    // before its request has landed.
    fixture.demo.platform.faults.set('status', { status: 503, times: 3 });
    const started = await t.service.startSale({ method: 'card', amount: 4_200, currency: 'EUR', merchantId: 'm-1002' });
    expect((await started.done).state).toBe('reversing');
    await t.service.idle();
    expect(await t.service.get(started.clientTransactionId)).toMatchObject({
      state: 'reversed',
      cancelledAmount: 4_200,
    });
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId, 'm-1002')).toBe(0);
  });

  it('the lookup fails: the sale is reversed (cancel Technical, full amount), retried with backoff until the platform answers', async () => {
    t = await fixture.startTerminal();
    t.devices.scanner.push('CODE-9');
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('status', { status: 503, times: 2 });
    fixture.demo.platform.faults.set('cancel', { status: 503, times: 2 });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      amount: 5_000,
      currency: 'EUR',
    });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'reversing', message: /being reversed, do not hand over the goods/ });
    await t.service.idle();
    const after = await t.service.get(started.clientTransactionId);
    expect(after).toMatchObject({ state: 'reversed', cancelledAmount: 5_000 });
    const reversal = t.service
      .list()
      .find((v) => v.kind === 'cancel' && v.relatedClientTransactionId === started.clientTransactionId);
    // The view carries the attempts too: the counter's hold screen shows them (docs/counter-page.md, "Local API and counter page").
    expect(reversal).toMatchObject({ state: 'approved', amount: 5_000, attempts: 3 });
    expect(t.service.row(reversal?.clientTransactionId ?? '')?.attempts).toBe(3);
    expect(ledgerOf(started.clientTransactionId).map((l) => [l.kind, l.effect])).toEqual([
      ['sale', 5_000],
      ['reversal', -5_000],
    ]);
  });

  it('a captured card sale whose lookup failed: the refused reversal becomes a full refund (nothing stays charged)', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('status', { status: 503, times: 4 });
    const started = await t.service.startSale({ method: 'card', amount: 6_000, currency: 'EUR' });
    expect((await started.done).state).toBe('reversing');
    await t.service.idle();
    expect(await t.service.get(started.clientTransactionId)).toMatchObject({
      state: 'reversed',
      refundedAmount: 6_000,
    });
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
  });

  it('a sale that never reached the platform (connection refused) fails clearly when offline sales are not available', async () => {
    t = await fixture.startTerminal({ baseUrl: 'https://127.0.0.1:9' });
    const view = await (await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR' })).done;
    expect(view).toMatchObject({
      state: 'failed',
      message: /cannot be reached .* offline sales are not available: nothing was charged/,
    });
  });
});

describe('unknown outcome of capture, cancel and refund', () => {
  it('refund answer lost after recording: adopted once; refund dropped before: nothing refunded, a clear error, retry works', async () => {
    t = await fixture.startTerminal();
    const sale = (await (await t.service.startSale({ method: 'card', amount: 9_000, currency: 'EUR' })).done)
      .clientTransactionId;
    fixture.demo.platform.faults.set('refund', { drop: 'after', times: 1 });
    const r = await fixture.final(t, await t.service.refund(sale, { amount: 1_000 }));
    expect(r).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect((await t.service.get(sale)).refundedAmount).toBe(1_000);
    fixture.demo.platform.faults.set('refund', { drop: 'before', times: 1 });
    const err = await t.service.refund(sale, { amount: 2_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'PAYMENT_NOT_DONE',
      message: /no record of the refund: nothing was refunded; try again/,
    });
    expect((await t.service.get(sale)).refundedAmount).toBe(1_000);
    await fixture.final(t, await t.service.refund(sale, { amount: 2_000 }));
    expect(
      ledgerOf(sale)
        .filter((l) => l.kind === 'refund')
        .map((l) => l.amount),
    ).toEqual([1_000, 2_000]);
  });

  it('a refund whose lookup keeps failing stays in flight and is resolved in the background', async () => {
    t = await fixture.startTerminal();
    const sale = (await (await t.service.startSale({ method: 'card', amount: 9_000, currency: 'EUR' })).done)
      .clientTransactionId;
    fixture.demo.platform.faults.set('refund', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('status', { status: 500, times: 4 });
    const r = await t.service.refund(sale, { amount: 1_500 });
    expect(r.state).toBe('in_flight');
    // While in flight it counts against what is left.
    await expect(t.service.refund(sale, { amount: 7_501 })).rejects.toMatchObject({ code: 'PAYMENT_RULE' });
    await t.service.idle();
    expect((await fixture.final(t, await t.service.get(r.clientTransactionId))).state).toBe('approved');
    expect((await t.service.get(sale)).refundedAmount).toBe(1_500);
  });

  it("cancel answer lost: found in the sale's history and adopted; capture answer lost: the sale shows Captured", async () => {
    // A grace past the strict platform's completion of a cancel (about 300 ms), so the lookup sees its result.
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', lookupGraceMs: 2_000 } } });
    const wallet = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      amount: 1_000,
      currency: 'EUR',
      walletId: 'W',
    });
    const sale = (await wallet.done).clientTransactionId;
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    expect((await fixture.final(t, await t.service.cancel(sale))).state).toBe('approved');
    expect((await t.service.get(sale)).state).toBe('cancelled');
    const card = (
      await (
        await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    fixture.demo.platform.faults.set('capture', { drop: 'after', times: 1 });
    expect((await t.service.capture(card)).state).toBe('approved');
    expect(await t.service.get(card)).toMatchObject({ state: 'approved', capturedAmount: 2_000 });
  });
});

function bind(p: PaymentsPlatform): PaymentsPlatform {
  return {
    process: p.process.bind(p),
    capture: p.capture.bind(p),
    captureAll: p.captureAll.bind(p),
    refund: p.refund.bind(p),
    cancel: p.cancel.bind(p),
    qrTerminalPayment: p.qrTerminalPayment.bind(p),
    allowedOperations: p.allowedOperations.bind(p),
    status: p.status.bind(p),
    refundByWeb: p.refundByWeb.bind(p),
  };
}
