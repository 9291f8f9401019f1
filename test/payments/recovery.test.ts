import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { immediateCaptureStatus } from '../helpers/demo-platform.js';

const fixture = useDemoPlatform();
let t: Terminal;

const card = {
  maskedPan: '411111******1111',
  scheme: 'VISA',
  expiry: '2812',
  encryptedData: 'ENC',
  ksn: 'FFFF0000000001',
};

/** A journal row as a crash leaves it (inserted directly, as payments writes it before the request). */
function leftRow(id: string, over: Record<string, unknown> = {}): void {
  t.journal.insert({
    clientTransactionId: id,
    kind: 'sale',
    amount: 1_000,
    currency: 'EUR',
    method: 'card',
    state: 'in_flight',
    clientDateTime: new Date().toISOString(),
    attempts: 1,
    cardSecret: { encryptedData: 'ENC', ksn: 'FFFF0000000001', expiry: '2812' },
    ...over,
  });
}

describe('start-up recovery of rows a crash left behind', () => {
  it('resolves each kind: sale found (adopted), sale not found (not done), interrupted at the reader, reversing, refund in flight', async () => {
    t = await fixture.startTerminal();
    const found = randomUUID();
    const missing = randomUUID();
    const atReader = randomUUID();
    const reversing = randomUUID();
    const refunded = randomUUID();
    const refundOp = randomUUID();
    const at = new Date().toISOString();
    // Sales the platform has, made as the crashed terminal would have sent them.
    for (const id of [found, reversing, refunded]) {
      await t.platform.process({
        clientDateTime: at,
        channel: 'instore',
        clientNewTransactionId: id,
        authorizationAmount: { amount: 1_000, currency: 'EUR' },
        entryMode: 'ContactChip',
        instrument: { instrumentType: 'card', card },
      });
    }
    await t.platform.refund(refunded, {
      clientDateTime: at,
      channel: 'instore',
      clientNewTransactionId: refundOp,
      refundAmount: { amount: 400, currency: 'EUR' },
      instrument: { instrumentType: 'card' },
    });
    leftRow(found);
    leftRow(missing);
    leftRow(atReader, { state: 'awaiting_customer' });
    leftRow(reversing, { state: 'reversing' });
    leftRow(refunded, {
      state: 'approved',
      capturedAmount: 1_000,
      platformStatus: 'Captured',
      serverTransactionId: 'srv',
      cardSecret: undefined,
    });
    t.journal.insert({
      clientTransactionId: refundOp,
      kind: 'refund',
      amount: 400,
      currency: 'EUR',
      method: 'card',
      state: 'in_flight',
      relatedClientTransactionId: refunded,
      clientDateTime: at,
      attempts: 1,
    });

    const summary = await t.service.recover();
    await t.service.idle();
    expect(summary).toEqual({ resolved: 3, reversing: 1, failed: 1 });
    expect(t.journal.get(found)).toMatchObject({
      state: 'approved',
      platformStatus: immediateCaptureStatus(),
      cardSecret: undefined,
    });
    expect(t.journal.get(missing)).toMatchObject({
      state: 'failed',
      message: /nothing was charged/,
      cardSecret: undefined,
    });
    expect(t.journal.get(atReader)).toMatchObject({ state: 'failed', message: /interrupted before it was sent/ });
    // The reversal of a captured sale is a refund (spec rule 3).
    expect(t.journal.get(reversing)).toMatchObject({ state: 'reversed', refundedAmount: 1_000 });
    expect(fixture.demo.platform.payments.netCharged(reversing)).toBe(0);
    // A refund the platform completes later (strict profile) is pending until it is final.
    expect(await fixture.final(t, await t.service.get(refundOp))).toMatchObject({
      state: 'approved',
      platformStatus: 'Accepted',
    });
    expect(t.journal.get(refunded)?.refundedAmount).toBe(400);
    // A second start finds nothing left to do.
    expect(await t.service.recover()).toEqual({ resolved: 0, reversing: 0, failed: 0 });
  });

  it('an authorization adopted at start-up is captured with payments.captureMode immediate, once', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'immediate' } } });
    const id = randomUUID();
    // An authorization-only merchant (m-1002): the platform answers Accepted, nothing captured.
    await t.platform.process(
      {
        clientDateTime: new Date().toISOString(),
        channel: 'instore',
        clientNewTransactionId: id,
        authorizationAmount: { amount: 2_600, currency: 'EUR' },
        entryMode: 'ContactChip',
        instrument: { instrumentType: 'card', card },
      },
      { merchantId: 'm-1002' },
    );
    leftRow(id, { merchantId: 'm-1002', amount: 2_600 });
    await t.service.recover();
    await t.service.idle();
    expect(t.journal.get(id)).toMatchObject({ state: 'approved', capturedAmount: 2_600 });
    const captures = t.service.list().filter((v) => v.kind === 'capture' && v.relatedClientTransactionId === id);
    expect(captures).toMatchObject([{ state: 'approved', amount: 2_600 }]);
    // A second start captures nothing more.
    await t.service.recover();
    await t.service.idle();
    const ledger = fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);
    expect(ledger.filter((l) => l.kind === 'capture').map((l) => l.amount)).toEqual([2_600]);
  });
});

describe('start-up recovery beside live sales', () => {
  it('leaves alone a sale this process took before recovery ran, and still resolves what an earlier process left', async () => {
    t = await fixture.startTerminal();
    const left = randomUUID();
    leftRow(left, { state: 'awaiting_customer' });
    // The counter takes a sale while recovery still waits for the first token: the customer is at the reader.
    t.devices.reader.next('wait-abort');
    const live = await t.service.startSale({ method: 'card', amount: 2_300, currency: 'EUR' });
    expect(t.journal.get(live.clientTransactionId)?.state).toBe('awaiting_customer');
    await t.service.recover();
    // The earlier process's row is resolved; the live sale is still waiting for its card.
    expect(t.journal.get(left)).toMatchObject({ state: 'failed' });
    expect(t.journal.get(live.clientTransactionId)).toMatchObject({ state: 'awaiting_customer' });
    await t.service.abortSale(live.clientTransactionId);
    expect((await live.done).state).not.toBe('failed');
  });
});
