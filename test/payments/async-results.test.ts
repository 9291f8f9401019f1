import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventRelay } from '../../src/payments/relay/relay.js';
import type { SimProfileName } from '../../src/sim/platform/profile.js';
import { startTerminalRelay, useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * A refund or cancel is final only once its result event says so (docs/platform-contract.md,
 * "Decisions where the spec is silent", refund or cancel answered pending or `Accepted`):
 * the strict demo platform answers a refund `Accepted` and a cancel `cancelled` with the
 * request event only, and the result event comes later, a success or a failure, the
 * status word never changing.
 */
const fixture = useDemoPlatform();
let relay: EventRelay | undefined;
let profileBefore: SimProfileName;
const dirs: Array<{ cleanup: () => void }> = [];

beforeEach(() => {
  profileBefore = fixture.demo.platform.context.profile.name;
  fixture.demo.platform.context.profile.set('strict');
});

afterEach(() => {
  relay?.stop();
  relay = undefined;
  fixture.demo.platform.payments.failNext(0);
  fixture.demo.platform.context.profile.set(profileBefore);
  while (dirs.length > 0) dirs.pop()?.cleanup();
});

function startRelay(t: Terminal): void {
  relay?.stop();
  relay = startTerminalRelay(t, fixture.demo.log);
}

async function cardSale(t: Terminal, amount: number, merchantId?: string): Promise<string> {
  const view = await (
    await t.service.startSale({
      method: 'card',
      amount,
      currency: 'EUR',
      ...(merchantId !== undefined ? { merchantId } : {}),
    })
  ).done;
  expect(view.state).toBe('approved');
  return view.clientTransactionId;
}

/** What the bus (and so SSE) said about one transaction, in order. */
function updatesOf(t: Terminal, id: string): Array<{ status: string; message?: string }> {
  return t.events
    .filter(
      (e) => e.type === 'transaction.updated' && (e.data as { clientTransactionId: string }).clientTransactionId === id,
    )
    .map((e) => e.data as { status: string; message?: string });
}

describe('a refund answered Accepted', () => {
  it('is pending until its result event says it succeeded: refunded only then', async () => {
    const t = await fixture.startTerminal();
    const sale = await cardSale(t, 4_000);
    const refund = await t.service.refund(sale, { amount: 1_500 });
    expect(refund).toMatchObject({ state: 'pending', platformStatus: 'Accepted', message: /pending at the platform/ });
    expect((await t.service.get(sale)).refundedAmount).toBe(0);
    // The rest is all that can be refunded meanwhile.
    await expect(t.service.refund(sale, { amount: 2_501 })).rejects.toMatchObject({ code: 'PAYMENT_RULE' });
    // Asked again before the result: still Accepted, still pending.
    expect(await t.service.get(refund.clientTransactionId, { refresh: true })).toMatchObject({
      state: 'pending',
      platformStatus: 'Accepted',
    });
    expect(fixture.demo.platform.payments.complete(refund.serverTransactionId as string)).toBe(true);
    expect(await t.service.get(refund.clientTransactionId, { refresh: true })).toMatchObject({
      state: 'approved',
      platformStatus: 'Accepted',
      message: 'refunded 15.00 EUR',
    });
    expect((await t.service.get(sale)).refundedAmount).toBe(1_500);
  });

  it('then failed: the refund row says so, nothing is refunded, the amount can be refunded again; the bus is told', async () => {
    const t = await fixture.startTerminal();
    const sale = await cardSale(t, 3_000);
    startRelay(t);
    fixture.demo.platform.payments.failNext(1);
    const refund = await t.service.refund(sale, { amount: 3_000 });
    expect(refund).toMatchObject({ state: 'pending', platformStatus: 'Accepted' });
    await until(
      `${refund.clientTransactionId} not pending`,
      () => t.service.get(refund.clientTransactionId),
      (v) => v.state !== 'pending',
    );
    const failed = await t.service.get(refund.clientTransactionId);
    expect(failed).toMatchObject({ state: 'failed', platformStatus: 'Accepted' });
    expect(failed.message).toBe(
      'the platform reports the refund failed (Refund failed at the wallet provider): nothing was refunded; 30.00 EUR can be refunded again',
    );
    expect((await t.service.get(sale)).refundedAmount).toBe(0);
    expect(updatesOf(t, refund.clientTransactionId).at(-1)).toMatchObject({
      status: 'failed',
      message: failed.message,
    });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(3_000);
    // The whole amount is refundable again, and this time it succeeds.
    const again = await fixture.final(t, await t.service.refund(sale));
    expect(again).toMatchObject({ state: 'approved', amount: 3_000 });
    expect((await t.service.get(sale)).refundedAmount).toBe(3_000);
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(0);
  });

  it('across a restart: the result that came while the terminal was down is read when it starts again', async () => {
    const dir = tempDir('async-results-');
    dirs.push(dir);
    const first = await fixture.startTerminal({ dataDir: dir.dir });
    const sale = await cardSale(first, 2_000);
    fixture.demo.platform.payments.failNext(1);
    const refund = await first.service.refund(sale, { amount: 800 });
    expect(refund.state).toBe('pending');
    await first.close();
    fixture.demo.platform.payments.complete(refund.serverTransactionId as string);
    const second = await fixture.startTerminal({ dataDir: dir.dir });
    expect(second.service.pendingTracking()).toMatchObject([{ clientTransactionId: refund.clientTransactionId }]);
    startRelay(second);
    await until(
      `${refund.clientTransactionId} not pending`,
      () => second.service.get(refund.clientTransactionId),
      (v) => v.state !== 'pending',
    );
    expect(await second.service.get(refund.clientTransactionId)).toMatchObject({
      state: 'failed',
      message: /nothing was refunded/,
    });
    expect((await second.service.get(sale)).refundedAmount).toBe(0);
    expect(second.service.pendingTracking()).toEqual([]);
  });
});

describe('a cancel answered cancelled before its result', () => {
  it('is pending until its result event says it succeeded: the sale is cancelled only then', async () => {
    const t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await cardSale(t, 2_400, 'm-1002');
    const cancel = await t.service.cancel(sale, { approvalCode: '4711' });
    expect(cancel).toMatchObject({ kind: 'cancel', state: 'pending', platformStatus: 'cancelled' });
    expect(await t.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 0 });
    fixture.demo.platform.payments.complete(cancel.serverTransactionId as string);
    expect(await t.service.get(cancel.clientTransactionId, { refresh: true })).toMatchObject({
      state: 'approved',
      message: 'cancelled 24.00 EUR',
    });
    expect(await t.service.get(sale)).toMatchObject({ state: 'cancelled', cancelledAmount: 2_400 });
  });

  it('the sale read cancelled before its cancel settles: the cancelled amount is counted once', async () => {
    const t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await cardSale(t, 1_800, 'm-1002');
    const cancel = await t.service.cancel(sale, { approvalCode: '4711' });
    expect(cancel.state).toBe('pending');
    fixture.demo.platform.payments.complete(cancel.serverTransactionId as string);
    // The sale's own record says cancelled first (a refresh of the sale), then the cancel's result arrives.
    expect(await t.service.get(sale, { refresh: true })).toMatchObject({ cancelledAmount: 1_800 });
    expect(await t.service.get(cancel.clientTransactionId, { refresh: true })).toMatchObject({ state: 'approved' });
    expect(await t.service.get(sale)).toMatchObject({ state: 'cancelled', cancelledAmount: 1_800 });
  });

  it('across a restart: the success that came while the terminal was down cancels the sale when it starts again', async () => {
    const dir = tempDir('async-results-');
    dirs.push(dir);
    const first = await fixture.startTerminal({ dataDir: dir.dir, config: { payments: { captureMode: 'deferred' } } });
    const sale = await cardSale(first, 900, 'm-1002');
    const cancel = await first.service.cancel(sale, { approvalCode: '4711' });
    expect(cancel.state).toBe('pending');
    await first.close();
    fixture.demo.platform.payments.complete(cancel.serverTransactionId as string);
    const second = await fixture.startTerminal({ dataDir: dir.dir, config: { payments: { captureMode: 'deferred' } } });
    expect(await second.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 0 });
    startRelay(second);
    await until(
      `${cancel.clientTransactionId} not pending`,
      () => second.service.get(cancel.clientTransactionId),
      (v) => v.state !== 'pending',
    );
    expect(await second.service.get(cancel.clientTransactionId)).toMatchObject({
      state: 'approved',
      message: 'cancelled 9.00 EUR',
    });
    expect(await second.service.get(sale)).toMatchObject({ state: 'cancelled', cancelledAmount: 900 });
    expect(fixture.demo.platform.payments.netCharged(sale, 'm-1002')).toBe(0);
  });

  it('then failed: the sale stays charged and can be cancelled again; the bus is told', async () => {
    const t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await cardSale(t, 1_700, 'm-1002');
    startRelay(t);
    fixture.demo.platform.payments.failNext(1);
    const cancel = await t.service.cancel(sale, { approvalCode: '4711' });
    expect(cancel.state).toBe('pending');
    await until(
      `${cancel.clientTransactionId} not pending`,
      () => t.service.get(cancel.clientTransactionId),
      (v) => v.state !== 'pending',
    );
    const failed = await t.service.get(cancel.clientTransactionId);
    expect(failed).toMatchObject({ state: 'failed', platformStatus: 'cancelled' });
    expect(failed.message).toBe(
      'the platform reports the cancel failed (Cancel failed at the wallet provider): nothing was cancelled; 17.00 EUR can be cancelled again',
    );
    expect(await t.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 0 });
    expect(updatesOf(t, cancel.clientTransactionId).at(-1)).toMatchObject({
      status: 'failed',
      message: failed.message,
    });
    expect(fixture.demo.platform.payments.netCharged(sale, 'm-1002')).toBe(1_700);
    const again = await t.service.cancel(sale, { approvalCode: '4711' });
    await until(
      `${sale} cancelled`,
      () => t.service.get(sale),
      (v) => v.state === 'cancelled',
    );
    expect(await t.service.get(again.clientTransactionId)).toMatchObject({ state: 'approved' });
    expect(fixture.demo.platform.payments.netCharged(sale, 'm-1002')).toBe(0);
  });
});
