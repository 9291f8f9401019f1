import { describe, expect, it } from 'vitest';
import { walletACancelDeadline } from '../../src/payments/rules.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { until } from '../helpers/wait.js';

const fixture = useDemoPlatform();
let t: Terminal;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A terminal clock the test moves; the platform clock follows it, 500 ms behind, so that
 * the time a call takes does not carry the platform over a boundary the terminal is just before.
 */
function clock(): { now: () => number; set(at: number): void } {
  let at = Date.now();
  return {
    now: () => at,
    set(value: number) {
      at = value;
      fixture.demo.platform.faults.clockOffsetMs = value - Date.now() - 500;
    },
  };
}

async function paidWallet(method: 'walletA' | 'walletB', amount: number): Promise<string> {
  const started = await t.service.startSale({
    method,
    scenario: 'MerchantScan',
    amount,
    currency: 'EUR',
    walletId: 'CODE-1',
  });
  if (method === 'walletB') {
    // walletB merchant scan answers Initialized and is paid about a second later at the
    // platform; no relay runs here, so ask the status call until it is (a loaded machine
    // may take longer than a second).
    const waiting = new Set(['created', 'in_flight', 'awaiting_customer']);
    await until(
      `walletB sale ${started.clientTransactionId} paid`,
      () => t.service.get(started.clientTransactionId, { refresh: true }),
      (view) => !waiting.has(view.state),
      { everyMs: 250 },
    );
  }
  const view = await started.done;
  expect(view.state).toBe('approved');
  return started.clientTransactionId;
}

describe('refunds', () => {
  it('full, partial and several partials up to the original; more than what is left is refused before the request leaves', async () => {
    t = await fixture.startTerminal();
    const sale = (await (await t.service.startSale({ method: 'card', amount: 10_000, currency: 'EUR' })).done)
      .clientTransactionId;
    const r1 = await fixture.final(t, await t.service.refund(sale, { amount: 2_500 }));
    expect(r1).toMatchObject({
      kind: 'refund',
      state: 'approved',
      amount: 2_500,
      platformStatus: 'Accepted',
      relatedClientTransactionId: sale,
    });
    expect(r1.clientTransactionId).not.toBe(sale);
    await fixture.final(t, await t.service.refund(sale, { amount: 2_500 }));
    await expect(t.service.refund(sale, { amount: 5_001 })).rejects.toMatchObject({
      code: 'PAYMENT_RULE',
      message: 'a refund of 50.01 EUR is more than the 50.00 EUR left to refund',
    });
    const rest = await fixture.final(t, await t.service.refund(sale));
    expect(rest.amount).toBe(5_000);
    expect((await t.service.get(sale)).refundedAmount).toBe(10_000);
    await expect(t.service.refund(sale, { amount: 1 })).rejects.toMatchObject({ message: /fully refunded/ });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(0);
    const refunds = fixture.demo.platform.payments
      .ledger()
      .filter((l) => l.paymentClientTransactionId === sale && l.kind === 'refund');
    expect(refunds.map((l) => l.amount)).toEqual([2_500, 2_500, 5_000]);
  });

  it('an authorized, uncaptured sale is cancelled, not refunded', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } } });
    const sale = (
      await (
        await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    await expect(t.service.refund(sale)).rejects.toMatchObject({
      code: 'PAYMENT_STATE',
      details: { suggest: 'cancel' },
    });
  });

  it('approval code (m-1002): the platform refusal says a supervisor code is required; a wrong one is named; the right one works', async () => {
    // Captured at once by the terminal, so a refund applies.
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'immediate' } } });
    const sale = (
      await (
        await t.service.startSale({ method: 'card', amount: 6_000, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    await expect(t.service.refund(sale, { amount: 1_000 })).rejects.toMatchObject({
      code: 'PAYMENT_RULE',
      message: 'the refund was refused: a supervisor approval code is required for this merchant',
      details: { approvalCodeRequired: true },
    });
    await expect(t.service.refund(sale, { amount: 1_000, approvalCode: '0000' })).rejects.toMatchObject({
      message: /approval code is not correct/,
    });
    const ok = await fixture.final(t, await t.service.refund(sale, { amount: 1_000, approvalCode: '4711' }));
    expect(ok.state).toBe('approved');
    // Failed attempts are journaled (written before the request left) and end failed.
    const rows = t.service.list().filter((v) => v.kind === 'refund');
    expect(rows.map((r) => r.state).sort()).toEqual(['approved', 'failed', 'failed']);
    expect((await t.service.get(sale)).refundedAmount).toBe(1_000);
  });

  it('a retried refund reuses its client transaction id and is answered with the existing refund', async () => {
    t = await fixture.startTerminal();
    const sale = (await (await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR' })).done)
      .clientTransactionId;
    const first = await fixture.final(t, await t.service.refund(sale, { amount: 1_000 }));
    const again = await t.service.refund(sale, { amount: 1_000, clientTransactionId: first.clientTransactionId });
    expect(again.clientTransactionId).toBe(first.clientTransactionId);
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(2_000);
  });
});

describe('cancels', () => {
  it('void (Functional) of an authorization in full; partial where the acquirer allows it', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } } });
    const sale = (
      await (
        await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    await expect(t.service.cancel(sale, { amount: 500, approvalCode: '4711' })).rejects.toMatchObject({
      message: /partial cancels/,
    });
    const cancel = await fixture.final(t, await t.service.cancel(sale, { approvalCode: '4711' }));
    expect(cancel).toMatchObject({ kind: 'cancel', state: 'approved', amount: 2_000, platformStatus: 'cancelled' });
    expect(await t.service.get(sale)).toMatchObject({ state: 'cancelled', cancelledAmount: 2_000 });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(0);
    await expect(t.service.cancel(sale)).rejects.toMatchObject({
      code: 'PAYMENT_STATE',
      message: /cancelled sale cannot be cancelled/,
    });
  });

  it('partial cancels of a wallet payment (m-1001 allows them), then Technical for the rest: reversed', async () => {
    t = await fixture.startTerminal();
    const sale = await paidWallet('walletA', 5_000);
    const part = await fixture.final(t, await t.service.cancel(sale, { amount: 2_000 }));
    expect(part.state).toBe('approved');
    expect(await t.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 2_000 });
    await fixture.final(t, await t.service.cancel(sale, { reason: 'Technical' }));
    expect(await t.service.get(sale)).toMatchObject({ state: 'reversed', cancelledAmount: 5_000 });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(0);
  });

  it('a captured card sale cannot be cancelled: a refund is suggested', async () => {
    t = await fixture.startTerminal();
    const sale = (await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' })).done)
      .clientTransactionId;
    await expect(t.service.cancel(sale)).rejects.toMatchObject({
      code: 'PAYMENT_STATE',
      details: { suggest: 'refund' },
      message: /captured.*refund it instead/,
    });
  });
});

describe('wallet windows (spec "Limits"), with the terminal and platform clocks moved together', () => {
  it('walletA: cancel until 00:15 UTC+8 the day after; from then on a refund is offered instead', async () => {
    const c = clock();
    t = await fixture.startTerminal({ now: c.now });
    const sale = await paidWallet('walletA', 1_000);
    const soldAt = Date.parse((await t.service.get(sale)).createdAt);
    const deadline = walletACancelDeadline(soldAt);
    c.set(deadline - 1);
    const before = await t.service.allowedOperations(sale);
    expect(before.cancel, JSON.stringify(before)).toMatchObject({ allowed: true, maxAmount: 1_000 });
    c.set(deadline);
    const allowed = await t.service.allowedOperations(sale);
    expect(allowed).toMatchObject({
      fromPlatform: true,
      cancel: { allowed: false },
      refund: { allowed: true, maxAmount: 1_000 },
    });
    const err = await t.service.cancel(sale).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'PAYMENT_RULE',
      details: { suggest: 'refund', deadline: new Date(deadline).toISOString() },
    });
    expect((err as Error).message).toMatch(
      /cancel window \(until 00:15 UTC\+8 on the day after the sale\) ended at .*: a refund is offered instead/,
    );
    expect((await fixture.final(t, await t.service.refund(sale))).state).toBe('approved');
  });

  it('walletA: one minute before the deadline the platform accepts the cancel', async () => {
    const c = clock();
    t = await fixture.startTerminal({ now: c.now });
    const sale = await paidWallet('walletA', 1_000);
    c.set(walletACancelDeadline(Date.parse((await t.service.get(sale)).createdAt)) - 60_000);
    expect((await fixture.final(t, await t.service.cancel(sale))).state).toBe('approved');
  });

  it('walletB: cancel in the first 24 h; refund up to 180 days, not after', async () => {
    const c = clock();
    t = await fixture.startTerminal({ now: c.now });
    const sale = await paidWallet('walletB', 2_000);
    const soldAt = Date.parse((await t.service.get(sale)).createdAt);
    c.set(soldAt + DAY - 1);
    expect((await t.service.allowedOperations(sale)).cancel.allowed).toBe(true);
    c.set(soldAt + DAY);
    await expect(t.service.cancel(sale)).rejects.toMatchObject({
      details: { suggest: 'refund' },
      message: /walletB cancel window \(for 24 hours after the sale\)/,
    });
    c.set(soldAt + 180 * DAY);
    expect((await fixture.final(t, await t.service.refund(sale, { amount: 500 }))).state).toBe('approved');
    c.set(soldAt + 180 * DAY + 1);
    await expect(t.service.refund(sale, { amount: 500 })).rejects.toMatchObject({
      code: 'PAYMENT_RULE',
      message: /walletB refund window \(180 days after the sale\) ended/,
    });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(1_500);
  });
});

describe('refund by web', () => {
  it('the platform picks: a cancellable wallet payment is cancelled, a captured card sale refunded', async () => {
    t = await fixture.startTerminal();
    const wallet = await paidWallet('walletA', 1_000);
    const w = await fixture.final(t, await t.service.refundByWeb(wallet, { amount: 300 }));
    expect(w).toMatchObject({ state: 'approved', platformStatus: 'cancelled' });
    expect(await t.service.get(wallet)).toMatchObject({ cancelledAmount: 300, refundedAmount: 0 });
    const sale = (await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' })).done)
      .clientTransactionId;
    const c = await fixture.final(t, await t.service.refundByWeb(sale));
    expect(c).toMatchObject({ state: 'approved', amount: 2_000, platformStatus: 'Accepted' });
    expect(await t.service.get(sale)).toMatchObject({ refundedAmount: 2_000 });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(0);
  });
});

describe('allowed operations', () => {
  it('merges the platform answer with the local rules; without the platform the local rules answer alone', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } } });
    const sale = (
      await (
        await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    expect(await t.service.allowedOperations(sale)).toEqual({
      cancel: { allowed: true, maxAmount: 2_000 },
      refund: {
        allowed: false,
        maxAmount: 0,
        reason: 'the sale is authorized but not captured: cancel it instead (nothing was charged yet)',
        reasonCode: 'NOT_CAPTURED_CANCEL_INSTEAD',
      },
      capture: { allowed: true, maxAmount: 2_000 },
      currency: 'EUR',
      fromPlatform: true,
    });
    fixture.demo.platform.faults.set('allowedoperations', { status: 503 });
    const local = await t.service.allowedOperations(sale);
    expect(local.fromPlatform).toBe(false);
    expect(local.capture).toEqual({ allowed: true, maxAmount: 2_000 });
  });

  it('the platform can narrow what the local rules allow', async () => {
    t = await fixture.startTerminal();
    const sale = (await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' })).done)
      .clientTransactionId;
    // Refunded behind the terminal's back (e.g. by web): the platform knows, the journal does not.
    await t.platform.refund(sale, {
      clientDateTime: new Date().toISOString(),
      channel: 'instore',
      clientNewTransactionId: `${sale.slice(0, 20)}-web`,
      refundAmount: { amount: 1_500, currency: 'EUR' },
      instrument: { instrumentType: 'card' },
    });
    const allowed = await t.service.allowedOperations(sale);
    expect(allowed.refund).toEqual({ allowed: true, maxAmount: 500 });
  });
});
