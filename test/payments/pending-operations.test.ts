import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { EventRelay } from '../../src/payments/relay/relay.js';
import type { SimProfileName } from '../../src/sim/platform/profile.js';
import { startTerminalRelay, useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { until } from '../helpers/wait.js';

/**
 * Refunds and cancels the platform answers pending (a refund may be asynchronous), ids
 * the platform knows either way, and a busy platform (docs/payments.md, "Capture,
 * cancel, refund"; docs/platform-contract.md, "Decisions where the spec is silent").
 */
const fixture = useDemoPlatform();
let t: Terminal;
let relay: EventRelay | undefined;
let profileBefore: SimProfileName;

beforeEach(() => {
  profileBefore = fixture.demo.platform.context.profile.name;
});

afterEach(() => {
  relay?.stop();
  relay = undefined;
  fixture.demo.platform.context.profile.set(profileBefore);
});

function strict(): void {
  fixture.demo.platform.context.profile.set('strict');
}

function startRelay(): void {
  relay = startTerminalRelay(t, fixture.demo.log);
}

async function cardSale(amount: number, merchantId?: string): Promise<string> {
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

const ledgerOf = (id: string): Array<[string, number]> =>
  fixture.demo.platform.payments
    .ledger()
    .filter((l) => l.paymentClientTransactionId === id)
    .map((l) => [l.kind, l.amount]);

describe('a refund or cancel answered pending', () => {
  it('a refund answered Accepted before its result is shown pending, counts against what is left, and ends final through the relay', async () => {
    strict();
    t = await fixture.startTerminal();
    const sale = await cardSale(5_000);
    startRelay();
    const refund = await t.service.refund(sale, { amount: 2_000 });
    expect(refund).toMatchObject({
      kind: 'refund',
      state: 'pending',
      platformStatus: 'Accepted',
      message: /pending at the platform/,
    });
    expect(refund.serverTransactionId).toBeDefined();
    // Not refunded yet, and not refundable twice meanwhile.
    expect((await t.service.get(sale)).refundedAmount).toBe(0);
    // Refused by the local rules before anything is sent (nothing journaled), not by the platform.
    await expect(t.service.refund(sale, { amount: 3_001 })).rejects.toMatchObject({
      code: 'PAYMENT_RULE',
      message: 'a refund of 30.01 EUR is more than the 30.00 EUR left to refund',
    });
    expect(t.service.list().filter((v) => v.kind === 'refund')).toHaveLength(1);
    expect(t.service.pendingTracking()).toMatchObject([
      { clientTransactionId: refund.clientTransactionId, statusId: refund.serverTransactionId },
    ]);
    await until(
      `${refund.clientTransactionId} not pending`,
      () => t.service.get(refund.clientTransactionId),
      (v) => v.state !== 'pending',
    );
    expect(await t.service.get(refund.clientTransactionId)).toMatchObject({
      state: 'approved',
      platformStatus: 'Accepted',
      message: 'refunded 20.00 EUR',
    });
    expect((await t.service.get(sale)).refundedAmount).toBe(2_000);
    expect(t.service.pendingTracking()).toEqual([]);
    expect(ledgerOf(sale)).toEqual([
      ['sale', 5_000],
      ['refund', 2_000],
    ]);
    // The relay put each platform event of the refund on the bus once, and the final state.
    const updates = t.events.filter(
      (e) =>
        e.type === 'transaction.updated' &&
        (e.data as { clientTransactionId: string }).clientTransactionId === refund.clientTransactionId,
    );
    expect(updates.at(-1)?.data).toMatchObject({ status: 'approved' });
    const keys = updates
      .map((e) => (e.data as { platformEvent?: unknown }).platformEvent)
      .filter((p) => p !== undefined)
      .map((p) => JSON.stringify(p));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a cancel answered pending ends final through the relay: the sale is cancelled then', async () => {
    strict();
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await cardSale(2_200, 'm-1002');
    startRelay();
    const cancel = await t.service.cancel(sale, { approvalCode: '4711' });
    expect(cancel).toMatchObject({ kind: 'cancel', state: 'pending', platformStatus: 'cancelled' });
    expect((await t.service.get(sale)).state).toBe('approved');
    await until(
      `${sale} cancelled`,
      () => t.service.get(sale),
      (v) => v.state === 'cancelled',
    );
    expect(await t.service.get(cancel.clientTransactionId)).toMatchObject({
      state: 'approved',
      platformStatus: 'cancelled',
    });
    expect(fixture.demo.platform.payments.netCharged(sale, 'm-1002')).toBe(0);
  });

  it('a pending refund is followed again after a restart (the relay resumes it)', async () => {
    strict();
    t = await fixture.startTerminal();
    const sale = await cardSale(1_300);
    const refund = await t.service.refund(sale);
    expect(refund.state).toBe('pending');
    // The platform completes it while nobody follows; a relay started later finds it.
    fixture.demo.platform.payments.complete(refund.serverTransactionId as string);
    startRelay();
    await until(
      `${refund.clientTransactionId} approved`,
      () => t.service.get(refund.clientTransactionId),
      (v) => v.state === 'approved',
    );
    expect((await t.service.get(sale)).refundedAmount).toBe(1_300);
  });
});

describe('transactions by the client or the server id', () => {
  it('status, refund and cancel take the server id; an id the journal does not know is asked of the platform', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await cardSale(4_000);
    const serverId = (await t.service.get(sale)).serverTransactionId as string;
    expect(serverId).toBeDefined();
    expect(serverId).not.toBe(sale);
    expect(await t.service.get(serverId)).toMatchObject({ clientTransactionId: sale, kind: 'sale', state: 'approved' });
    expect(await t.service.get(serverId, { refresh: true })).toMatchObject({ clientTransactionId: sale });
    const refund = await fixture.final(t, await t.service.refund(serverId, { amount: 1_000 }));
    expect(refund).toMatchObject({ state: 'approved', relatedClientTransactionId: sale });
    expect((await t.service.allowedOperations(serverId)).refund).toMatchObject({ allowed: true, maxAmount: 3_000 });

    const auth = await cardSale(1_500, 'm-1002');
    const authServerId = (await t.service.get(auth)).serverTransactionId as string;
    const cancel = await fixture.final(t, await t.service.cancel(authServerId, { approvalCode: '4711' }));
    expect(cancel).toMatchObject({ state: 'approved', relatedClientTransactionId: auth });
    expect((await t.service.get(auth)).state).toBe('cancelled');

    // Made at the platform behind the journal's back: shown as the platform reports it.
    const foreign = randomUUID();
    const record = await t.platform.process({
      clientDateTime: new Date().toISOString(),
      channel: 'instore',
      clientNewTransactionId: foreign,
      authorizationAmount: { amount: 700, currency: 'EUR' },
      entryMode: 'ContactChip',
      instrument: {
        instrumentType: 'card',
        card: {
          maskedPan: '411111******1111',
          scheme: 'VISA',
          expiry: '2812',
          encryptedData: 'ENC',
          ksn: 'FFFF0000000001',
        },
      },
    });
    for (const id of [foreign, record.serverTransactionId]) {
      expect(await t.service.get(id)).toMatchObject({
        clientTransactionId: foreign,
        serverTransactionId: record.serverTransactionId,
        kind: 'sale',
        amount: 700,
        currency: 'EUR',
        state: 'approved',
        message: /not in this terminal's journal/,
      });
    }
    await expect(t.service.refund(record.serverTransactionId)).rejects.toMatchObject({
      code: 'PAYMENT_NOT_FOUND',
      message: /journal has no row for it/,
    });
    await expect(t.service.get('no-such-transaction')).rejects.toMatchObject({
      code: 'PAYMENT_NOT_FOUND',
      message: /neither in the journal nor at the platform/,
    });
  });
});

describe('a busy platform (429 or 503 with Retry-After, before processing)', () => {
  it('the sale is sent again with the same client id after Retry-After and approved once', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('process', { status: 429, retryAfterSeconds: 1, times: 1 });
    const view = await (await t.service.startSale({ method: 'card', amount: 1_700, currency: 'EUR' })).done;
    expect(view).toMatchObject({ state: 'approved' });
    expect(ledgerOf(view.clientTransactionId)).toEqual([['sale', 1_700]]);
    fixture.demo.platform.faults.set('process', { status: 503, retryAfterSeconds: 1, times: 1 });
    const again = await (await t.service.startSale({ method: 'card', amount: 1_800, currency: 'EUR' })).done;
    expect(again.state).toBe('approved');
    expect(ledgerOf(again.clientTransactionId)).toEqual([['sale', 1_800]]);
  });

  it('strict profile: the first call of a sale is answered 429; the retry is approved, one charge', async () => {
    strict();
    t = await fixture.startTerminal();
    const view = await (await t.service.startSale({ method: 'card', amount: 1_029, currency: 'EUR' })).done;
    expect(view).toMatchObject({ state: 'approved' });
    expect(ledgerOf(view.clientTransactionId)).toEqual([['sale', 1_029]]);
    expect(
      fixture.demo.sink
        .records()
        .some((r) => r.msg === 'platform busy before processing; sending the same request again'),
    ).toBe(true);
  });

  it('beyond payments.busyRetryMaxMs the 429 stands: nothing was charged', async () => {
    t = await fixture.startTerminal({ config: { payments: { busyRetryMaxMs: 500 } } });
    fixture.demo.platform.faults.set('process', { status: 429, retryAfterSeconds: 1 });
    const view = await (await t.service.startSale({ method: 'card', amount: 1_900, currency: 'EUR' })).done;
    expect(view).toMatchObject({ state: 'failed', message: /nothing was charged/ });
    expect(ledgerOf(view.clientTransactionId)).toEqual([]);
  });
});
