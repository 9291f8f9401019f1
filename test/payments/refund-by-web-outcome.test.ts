import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TransactionView } from '../../src/payments/index.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * A refund by web whose answer was lost (docs/platform-contract.md, "Decisions where the
 * spec is silent", recognising a refund by web whose answer was lost): the platform never
 * promised to record the `clientNewTransactionId` the agent invented, and the strict profile
 * does not (a 404 by it although the refund exists). The outcome is read from what the
 * platform does know, the sale acted upon (its history, what it still allows); until then
 * the row stays "being checked: do not repeat", its amount held against the sale, and no
 * second refund can be sent.
 */
const fixture = useDemoPlatform();
const strict = testSimProfile() === 'strict';
let t: Terminal;

async function cardSale(terminal: Terminal, amount: number, merchantId?: string): Promise<string> {
  const done = await (
    await terminal.service.startSale({
      method: 'card',
      amount,
      currency: 'EUR',
      ...(merchantId !== undefined ? { merchantId } : {}),
    })
  ).done;
  expect(done.state).toBe('approved');
  return done.clientTransactionId;
}

/** The platform's money movements of one kind for a sale (its ledger). */
function movements(saleClientId: string, kind: 'refund' | 'cancel'): number[] {
  return fixture.demo.platform.payments
    .ledger()
    .filter((e) => e.paymentClientTransactionId === saleClientId && e.kind === kind)
    .map((e) => e.amount);
}

/** The strict platform completes a refund it answered pending a moment later (by itself): waited for on its ledger. */
async function ledgerSettled(saleClientId: string, net: number): Promise<void> {
  await until(
    `${saleClientId} net ${net} on the platform`,
    () => fixture.demo.platform.payments.netCharged(saleClientId),
    (charged) => charged === net,
  );
}

describe('refund by web: an answer lost, the id the agent invented never found', () => {
  it("is checked at the platform, not repeated: the clerk is told so, the amount is held, then the platform's outcome is recorded", async () => {
    t = await fixture.startTerminal();
    const sale = await cardSale(t, 2_000);
    // The refund lands, its answer is lost; what the sale still allows cannot be read for a while.
    fixture.demo.platform.faults.set('refundbyweb', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('allowedoperations', { status: 503 });

    const first: TransactionView = await t.service.refundByWeb(sale, { amount: 500 });
    if (strict) {
      // Not "nothing was refunded; try again": the platform has not said so.
      expect(first).toMatchObject({ kind: 'refund', state: 'in_flight', amount: 500 });
      expect(first.message).toMatch(/being checked.*do not repeat/);
      // Held against the sale: nothing more than the rest can be given back meanwhile.
      await expect(t.service.refundByWeb(sale, { amount: 2_000 })).rejects.toMatchObject({ code: 'PAYMENT_RULE' });
      expect((await t.service.get(sale)).refundedAmount).toBe(0);
    }
    fixture.demo.platform.faults.clear('allowedoperations');
    await t.service.idle();

    const settled = await fixture.final(t, await t.service.get(first.clientTransactionId));
    expect(settled).toMatchObject({ kind: 'refund', state: 'approved', amount: 500, relatedClientTransactionId: sale });
    expect(await t.service.get(sale)).toMatchObject({ refundedAmount: 500, cancelledAmount: 0 });
    await ledgerSettled(sale, 1_500);
    expect(movements(sale, 'refund')).toEqual([500]);
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(1_500);
    expect(t.service.list().filter((v) => v.kind === 'refund')).toHaveLength(1);
  });

  it('a restart while it is being checked: start-up recovery finds it from the sale, and nothing is refunded twice', async () => {
    const dir = tempDir('refund-by-web-restart-');
    const dataDir = join(dir.dir, 'data');
    const first = await fixture.startTerminal({ dataDir });
    const sale = await cardSale(first, 3_000);
    fixture.demo.platform.faults.set('refundbyweb', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('allowedoperations', { status: 503 });
    const op = await first.service.refundByWeb(sale, { amount: 1_000 }).catch((err: unknown) => err);
    if (strict) expect(op).toMatchObject({ state: 'in_flight' });
    await first.close();
    fixture.demo.platform.faults.clear('allowedoperations');

    t = await fixture.startTerminal({ dataDir });
    await t.service.recover();
    await t.service.idle();
    const refunds = t.service.list().filter((v) => v.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(await fixture.final(t, refunds[0] as TransactionView)).toMatchObject({ state: 'approved', amount: 1_000 });
    expect(await t.service.get(sale)).toMatchObject({ refundedAmount: 1_000 });
    await ledgerSettled(sale, 2_000);
    expect(movements(sale, 'refund')).toEqual([1_000]);
    await t.close();
    dir.cleanup();
  });

  it("a web shop's order: found again from the order's own record, one refund", async () => {
    t = await fixture.startTerminal();
    const order = fixture.demo.platform.payments.webOrder({ amount: { amount: 4_000, currency: 'EUR' } });
    const id = order.clientTransactionId;
    fixture.demo.platform.faults.set('refundbyweb', { drop: 'after', times: 1 });
    const op = await t.service.refundByWeb(id, { amount: 1_500 });
    await t.service.idle();
    const settled = await fixture.final(t, await t.service.get(op.clientTransactionId));
    expect(settled).toMatchObject({ state: 'approved', amount: 1_500, relatedClientTransactionId: id });
    expect(await t.service.get(id)).toMatchObject({ origin: 'web', refundedAmount: 1_500 });
    await ledgerSettled(id, 2_500);
    expect(movements(id, 'refund')).toEqual([1_500]);
  });

  it("a cancel by web whose answer was lost is recognised in the sale's history (our amount and clientDateTime)", async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    // Demo Books captures later: its authorization is cancelled, not refunded, by web (in full: no partial cancel).
    const sale = await cardSale(t, 2_500, 'm-1002');
    fixture.demo.platform.faults.set('refundbyweb', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('allowedoperations', { status: 503 });
    const op = await t.service.refundByWeb(sale, { amount: 2_500 });
    await t.service.idle();
    const settled = await fixture.final(t, await t.service.get(op.clientTransactionId));
    expect(settled).toMatchObject({ state: 'approved', amount: 2_500 });
    expect(await t.service.get(sale)).toMatchObject({ cancelledAmount: 2_500, refundedAmount: 0, state: 'cancelled' });
    expect(
      fixture.demo.platform.payments
        .ledger()
        .filter((e) => e.paymentClientTransactionId === sale && e.kind === 'cancel'),
    ).toHaveLength(1);
  });
});
