import { describe, expect, it } from 'vitest';
import { journalMigrations } from '../../src/payments/index.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';

/**
 * Refund by web of a web shop's order, a transaction this terminal did not make
 * (docs/platform-contract.md, "Decisions where the spec is silent", refund by web): looked
 * up at the platform by the id given, journaled as a marked sale (origin web), then given
 * back by web as usual; against the demo platform in the run's profile.
 */
const fixture = useDemoPlatform();
let t: Terminal;

function webOrder(amount: number, merchantId?: string): { clientTransactionId: string; serverTransactionId: string } {
  const record = fixture.demo.platform.payments.webOrder({
    amount: { amount, currency: 'EUR' },
    ...(merchantId !== undefined ? { merchantId } : {}),
  });
  return { clientTransactionId: record.clientTransactionId, serverTransactionId: record.serverTransactionId };
}

describe("refund by web of a web shop's order", () => {
  it('named by its client id: journaled as a web order from its record, then refunded by web in part and the rest', async () => {
    t = await fixture.startTerminal();
    const order = webOrder(2_500);
    expect(t.service.row(order.clientTransactionId)).toBeUndefined();

    const part = await fixture.final(t, await t.service.refundByWeb(order.clientTransactionId, { amount: 1_000 }));
    expect(part).toMatchObject({
      kind: 'refund',
      state: 'approved',
      amount: 1_000,
      currency: 'EUR',
      relatedClientTransactionId: order.clientTransactionId,
    });
    const sale = await t.service.get(order.clientTransactionId);
    expect(sale).toMatchObject({
      kind: 'sale',
      origin: 'web',
      state: 'approved',
      amount: 2_500,
      currency: 'EUR',
      serverTransactionId: order.serverTransactionId,
      refundedAmount: 1_000,
      capturedAmount: 2_500,
    });
    expect(sale.message).toMatch(/web order, not taken at this terminal/);
    expect(fixture.demo.platform.payments.netCharged(order.clientTransactionId)).toBe(1_500);
    // Visible in the list, marked; the terminal's own sales carry no origin.
    const listed = t.service.list().find((v) => v.clientTransactionId === order.clientTransactionId);
    expect(listed?.origin).toBe('web');

    const rest = await fixture.final(t, await t.service.refundByWeb(order.clientTransactionId));
    expect(rest).toMatchObject({ state: 'approved', amount: 1_500 });
    expect(fixture.demo.platform.payments.netCharged(order.clientTransactionId)).toBe(0);
    expect(t.service.list().filter((v) => v.clientTransactionId === order.clientTransactionId)).toHaveLength(1);
  });

  it("named by its server id: the row keeps the platform's client id, and the terminal captures nothing of it", async () => {
    t = await fixture.startTerminal();
    const order = webOrder(4_000);
    const op = await fixture.final(t, await t.service.refundByWeb(order.serverTransactionId, { amount: 1_500 }));
    expect(op).toMatchObject({
      state: 'approved',
      amount: 1_500,
      relatedClientTransactionId: order.clientTransactionId,
    });
    expect(await t.service.get(order.clientTransactionId)).toMatchObject({ origin: 'web', refundedAmount: 1_500 });
    expect(fixture.demo.platform.payments.netCharged(order.clientTransactionId)).toBe(2_500);
    expect(t.service.list().filter((v) => v.kind === 'capture')).toEqual([]);
  });

  it('a web order is given back by web only: cancel, refund and capture from the counter are refused and send nothing', async () => {
    t = await fixture.startTerminal();
    const order = webOrder(1_200);
    await fixture.final(t, await t.service.refundByWeb(order.clientTransactionId, { amount: 200 }));
    for (const attempt of [
      () => t.service.cancel(order.clientTransactionId),
      () => t.service.refund(order.clientTransactionId),
      () => t.service.capture(order.clientTransactionId),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'PAYMENT_STATE', message: /web order/ });
    }
    expect(fixture.demo.platform.payments.netCharged(order.clientTransactionId)).toBe(1_000);
  });

  it("another merchant's web order: looked up and given back with that merchant's token (merchantId), not found with the default one", async () => {
    t = await fixture.startTerminal();
    // Demo Books (m-1002) is not the terminal's default merchant (Demo Coffee).
    const order = webOrder(3_000, 'm-1002');
    await expect(t.service.refundByWeb(order.clientTransactionId)).rejects.toMatchObject({ code: 'PAYMENT_NOT_FOUND' });
    expect(t.service.row(order.clientTransactionId)).toBeUndefined();

    // Demo Books allows no partial cancel: everything left, the merchant named by its name.
    const op = await fixture.final(
      t,
      await t.service.refundByWeb(order.clientTransactionId, { merchantId: 'Demo Books' }),
    );
    expect(op).toMatchObject({
      state: 'approved',
      amount: 3_000,
      relatedClientTransactionId: order.clientTransactionId,
    });
    expect(await t.service.get(order.clientTransactionId)).toMatchObject({ origin: 'web', merchantId: 'Demo Books' });
    expect(fixture.demo.platform.payments.netCharged(order.clientTransactionId, 'm-1002')).toBe(0);
  });

  it('an unknown merchant is refused before anything is looked up or journaled, naming the field', async () => {
    t = await fixture.startTerminal();
    const order = webOrder(1_000);
    const before = fixture.demo.platform.payments.netCharged(order.clientTransactionId);
    await expect(
      t.service.refundByWeb(order.clientTransactionId, { merchantId: 'no-such-merchant' }),
    ).rejects.toMatchObject({
      code: 'AUTH_NO_MERCHANT',
      message: /merchant no-such-merchant is not one of this terminal's merchants: nothing was looked up or given back/,
      details: { field: 'merchantId' },
    });
    expect(t.service.list()).toEqual([]);
    expect(fixture.demo.platform.payments.netCharged(order.clientTransactionId)).toBe(before);
  });

  it('an id neither the journal nor the platform knows is still PAYMENT_NOT_FOUND, and nothing is journaled', async () => {
    t = await fixture.startTerminal();
    await expect(t.service.refundByWeb('web-no-such-order')).rejects.toMatchObject({ code: 'PAYMENT_NOT_FOUND' });
    expect(t.service.list()).toEqual([]);
  });

  it('the journal has the origin column (migration 2)', () => {
    expect(journalMigrations.find((m) => m.version === 2)?.name).toBe('transaction origin');
  });
});
