import { afterEach, describe, expect, it } from 'vitest';
import { createEventRelay, type EventRelay } from '../../src/payments/relay/relay.js';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import type { QrTerminalPaymentRequest } from '../../src/platform/schemas/requests.js';
import { toSaleRequest } from '../../src/ui/local/routes/payments.js';
import { saleBodySchema } from '../../src/ui/shared/schemas.js';
import { walletACancelDeadline } from '../../src/payments/rules.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { untilTrue } from '../helpers/wait.js';

const fixture = useDemoPlatform();
let t: Terminal;
let relay: EventRelay | undefined;

afterEach(() => {
  relay?.stop();
  relay = undefined;
});

const ledgerOf = (id: string) =>
  fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);

/** Only the terminal QR call carries an order: the platform's request event shows which call made the payment. */
const orderAtPlatform = (id: string): unknown => fixture.demo.platform.payments.transaction(id)?.events[0]?.order;

function startRelay(): void {
  relay = createEventRelay({
    store: t.service,
    fetchStatus: (id, merchantId) => t.platform.status(id, merchantId !== undefined ? { merchantId } : {}),
    log: fixture.demo.log,
    policy: { fastIntervalMs: 20 },
    timeZone: t.config.platform.timeZone,
  });
  relay.start();
}

/**
 * The strict platform does not know a QR call's client id at the payment API (only its
 * server id): without a server id from the answer, nothing can find the sale there, and it
 * stays being checked (docs/payments.md, "Wallet QR, merchant scan").
 */
const QR_CLIENT_ID_KNOWN = testSimProfile() !== 'strict';
const BEING_CHECKED = /outcome being checked with the platform: do not repeat the sale/;

/** The sale's row once its flow left it being checked (or settled otherwise). */
async function checkedOrSettled(id: string): Promise<void> {
  await untilTrue(`${id} being checked or settled`, () => {
    const row = t.journal.get(id);
    return row !== undefined && (row.state !== 'in_flight' || BEING_CHECKED.test(row.message ?? ''));
  });
}

/** The platform client with the terminal QR call replaced; every other call as it is. */
function withQrCall(p: PaymentsPlatform, qrTerminalPayment: PaymentsPlatform['qrTerminalPayment']): PaymentsPlatform {
  return {
    process: p.process.bind(p),
    qrTerminalPayment,
    capture: p.capture.bind(p),
    captureAll: p.captureAll.bind(p),
    refund: p.refund.bind(p),
    cancel: p.cancel.bind(p),
    allowedOperations: p.allowedOperations.bind(p),
    status: p.status.bind(p),
    refundByWeb: p.refundByWeb.bind(p),
  };
}

describe('wallet merchant scan through the terminal QR call', () => {
  it('walletA: the scanned code as scannedPaymentId, journaled in flight before the call, Accepted, charged once and never through process', async () => {
    const sent: Array<{ body: QrTerminalPaymentRequest; state?: string }> = [];
    let processCalls = 0;
    t = await fixture.startTerminal({
      wrap: (p) => ({
        ...withQrCall(p, (body, opts) => {
          const row = t.journal.get(body.clientTransactionId);
          sent.push({ body, ...(row !== undefined ? { state: row.state } : {}) });
          return p.qrTerminalPayment(body, opts);
        }),
        process: (body, opts) => {
          processCalls++;
          return p.process(body, opts);
        },
      }),
    });
    t.devices.scanner.push('  281012345678901234  ');
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      amount: 4_200,
      currency: 'EUR',
      order: { orderId: 'ORDER-77', orderDescription: 'two coffees' },
    });
    const view = await started.done;
    expect(view).toMatchObject({
      state: 'approved',
      platformStatus: 'Accepted',
      method: 'walletA',
      scenario: 'MerchantScan',
      message: 'approved: 42.00 EUR',
    });
    expect(view.serverTransactionId).toBeDefined();
    expect(processCalls).toBe(0);
    expect(sent).toEqual([
      {
        state: 'in_flight',
        body: {
          paymentType: 'walletA',
          paymentScenario: 'MerchantScan',
          scannedPaymentId: '281012345678901234',
          clientTransactionId: started.clientTransactionId,
          paymentAmount: { amount: 4_200, currency: 'EUR' },
          order: { orderId: 'ORDER-77', orderDescription: 'two coffees' },
        },
      },
    ]);
    expect(t.devices.display.texts[0]).toEqual(['42.00 EUR', 'Show your wallet code']);
    expect(t.devices.display.texts.at(-1)).toEqual(['42.00 EUR', 'Approved']);
    // The platform's transaction and ledger: one Payment, charged once.
    const tx = fixture.demo.platform.payments.transaction(started.clientTransactionId);
    expect(tx).toMatchObject({
      transactionType: 'Payment',
      transactionStatus: 'Accepted',
      serverTransactionId: view.serverTransactionId,
    });
    expect(ledgerOf(started.clientTransactionId).map((l) => [l.kind, l.amount])).toEqual([['sale', 4_200]]);
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(4_200);
  });

  it('the request as the platform saw it: order, scanned id and client id; without an order the client id is the order id', async () => {
    t = await fixture.startTerminal();
    const a = await t.service.startSale({
      method: 'walletB',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WB-CODE-7',
      amount: 990,
      currency: 'EUR',
      order: { orderId: 'INV-2024-0042' },
    });
    await untilTrue('one sale tracked', () => t.service.pendingTracking().length === 1);
    const txA = fixture.demo.platform.payments.transaction(a.clientTransactionId);
    expect(txA?.clientTransactionId).toBe(a.clientTransactionId);
    expect(txA?.events[0]).toMatchObject({
      eventType: 'walletBRequest',
      WalletId: 'WB-CODE-7',
      instrument: { instrumentType: 'walletB', paymentScenario: 'MerchantScan', walletId: 'WB-CODE-7' },
      authorizationAmount: { amount: 990, currency: 'EUR' },
      order: { orderId: 'INV-2024-0042', orderDescription: '' },
    });
    expect(t.devices.scanner.calls).toEqual([]);
    await t.service.abortSale(a.clientTransactionId);

    const b = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-1',
      amount: 100,
      currency: 'EUR',
    });
    await b.done;
    expect(fixture.demo.platform.payments.transaction(b.clientTransactionId)?.events[0]).toMatchObject({
      WalletId: 'WA-1',
      order: { orderId: b.clientTransactionId, orderDescription: '' },
    });
  });

  it('walletB answers Initialized: waiting for the wallet, tracked by the relay until Accepted', async () => {
    t = await fixture.startTerminal();
    const tracked: string[] = [];
    t.service.onTracking((p) => tracked.push(p.clientTransactionId));
    startRelay();
    t.devices.scanner.push('WB-SCANNED-1');
    const started = await t.service.startSale({
      method: 'walletB',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      amount: 1_300,
      currency: 'EUR',
    });
    await untilTrue('one sale tracked', () => tracked.length === 1);
    expect(tracked).toEqual([started.clientTransactionId]);
    const waiting = await t.service.get(started.clientTransactionId);
    expect(waiting).toMatchObject({
      state: 'awaiting_customer',
      platformStatus: 'Initialized',
      message: 'waiting for the wallet to confirm',
    });
    expect(waiting.qr).toBeUndefined();
    expect(t.devices.display.qrs).toEqual([]);
    // The wallet confirms about 1 s after the answer (platform clock moved past it).
    fixture.demo.platform.faults.clockOffsetMs = 2_000;
    const done = await started.done;
    expect(done).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect(t.service.pendingTracking()).toEqual([]);
    expect(orderAtPlatform(started.clientTransactionId)).toEqual({
      orderId: started.clientTransactionId,
      orderDescription: '',
    });
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(1_300);
    expect(ledgerOf(started.clientTransactionId).filter((l) => l.kind === 'sale')).toHaveLength(1);
  });

  it('a repeated clientTransactionId answers the existing transaction (charged once); a different payment under it is refused', async () => {
    t = await fixture.startTerminal();
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-REPEAT',
      amount: 2_500,
      currency: 'EUR',
    });
    const view = await started.done;
    expect(orderAtPlatform(started.clientTransactionId)).toBeDefined();
    const body: QrTerminalPaymentRequest = {
      paymentType: 'walletA',
      paymentScenario: 'MerchantScan',
      scannedPaymentId: 'WA-REPEAT',
      clientTransactionId: started.clientTransactionId,
      paymentAmount: { amount: 2_500, currency: 'EUR' },
      order: { orderId: started.clientTransactionId, orderDescription: '' },
    };
    const again = await t.platform.qrTerminalPayment(body);
    expect(again).toMatchObject({
      serverTransactionId: view.serverTransactionId,
      clientTransactionId: started.clientTransactionId,
      transactionStatus: 'Accepted',
    });
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
    const other = await t.platform
      .qrTerminalPayment({ ...body, paymentAmount: { amount: 2_600, currency: 'EUR' } })
      .catch((e: unknown) => e);
    expect(other).toMatchObject({ status: 409, category: 'rejected' });
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(2_500);
  });

  it('an answer without a transaction status or server id (the spec does not show one) is read through the status call by client id: adopted where the payment API knows it, else being checked', async () => {
    t = await fixture.startTerminal({
      wrap: (p) =>
        withQrCall(p, async (body, opts) => {
          await p.qrTerminalPayment(body, opts);
          return { accepted: true };
        }),
    });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-2',
      amount: 700,
      currency: 'EUR',
    });
    await checkedOrSettled(started.clientTransactionId);
    if (QR_CLIENT_ID_KNOWN) expect(await started.done).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    else
      expect(t.journal.get(started.clientTransactionId)).toMatchObject({
        state: 'in_flight',
        message: expect.stringMatching(BEING_CHECKED),
      });
    expect(orderAtPlatform(started.clientTransactionId)).toBeDefined();
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
  });
});

describe('unknown outcome of the terminal QR call', () => {
  it('answer lost after the platform recorded the payment: looked up by client id and adopted where the payment API knows it, else being checked; charged once', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('qrcode', { drop: 'after', times: 1 });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-LOST',
      amount: 3_000,
      currency: 'EUR',
    });
    await checkedOrSettled(started.clientTransactionId);
    if (QR_CLIENT_ID_KNOWN) {
      const view = await started.done;
      expect(view).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
      expect(view.serverTransactionId).toBe(
        fixture.demo.platform.payments.transaction(started.clientTransactionId)?.serverTransactionId,
      );
    } else
      expect(t.journal.get(started.clientTransactionId)).toMatchObject({
        state: 'in_flight',
        message: expect.stringMatching(BEING_CHECKED),
      });
    expect(orderAtPlatform(started.clientTransactionId)).toBeDefined();
    expect(ledgerOf(started.clientTransactionId).map((l) => [l.kind, l.amount])).toEqual([['sale', 3_000]]);
  });

  it('dropped before the platform recorded it: "not found" by a client id the payment API never promised to know is no word on the money; being checked until the window closes, then needs attention', async () => {
    let wall = Date.now();
    t = await fixture.startTerminal({ now: () => wall });
    fixture.demo.platform.faults.set('qrcode', { drop: 'before', times: 1 });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-NEVER',
      amount: 3_100,
      currency: 'EUR',
    });
    const id = started.clientTransactionId;
    await checkedOrSettled(id);
    expect(t.journal.get(id)).toMatchObject({ state: 'in_flight', message: expect.stringMatching(BEING_CHECKED) });
    wall = walletACancelDeadline(Date.parse(t.journal.require(id).clientDateTime)) + 1;
    expect(await started.done).toMatchObject({
      state: 'needs_attention',
      message: expect.stringMatching(/never gave the outcome/),
    });
    expect(fixture.demo.platform.payments.transaction(id)).toBeUndefined();
    expect(ledgerOf(id)).toEqual([]);
  });

  it('a 5xx after recording and a failing lookup: the sale is reversed until the platform answers (the cancel by client id where the payment API knows it; else needs attention once the window closed)', async () => {
    let wall = Date.now();
    t = await fixture.startTerminal({ now: () => wall });
    fixture.demo.platform.faults.set('qrcode', { status: 503, afterRecord: true, times: 1 });
    fixture.demo.platform.faults.set('status', { status: 503, times: 2 });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-REV',
      amount: 5_000,
      currency: 'EUR',
    });
    expect(await started.done).toMatchObject({ state: 'reversing' });
    if (QR_CLIENT_ID_KNOWN) {
      await t.service.idle();
      expect(await t.service.get(started.clientTransactionId)).toMatchObject({
        state: 'reversed',
        cancelledAmount: 5_000,
      });
      expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
    } else {
      // The cancel by the client id meets "not found" again and again: no word, so the reversal goes on until the window closes.
      await untilTrue('a cancel tried twice', () =>
        t.service.list().some((v) => v.kind === 'cancel' && (v.attempts ?? 0) >= 2),
      );
      expect(t.journal.get(started.clientTransactionId)?.state).toBe('reversing');
      wall = walletACancelDeadline(Date.parse(t.journal.require(started.clientTransactionId).clientDateTime)) + 1;
      await t.service.idle();
      expect(t.journal.get(started.clientTransactionId)).toMatchObject({
        state: 'needs_attention',
        message: expect.stringMatching(/never gave the outcome/),
      });
      expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(5_000);
    }
    expect(orderAtPlatform(started.clientTransactionId)).toBeDefined();
  });

  it("an abort while the QR call is still out waits for its answer, then sends the cancel by the server id: cancelled on the platform's word, nothing charged", async () => {
    const cancels: string[] = [];
    t = await fixture.startTerminal({
      wrap: (p) => ({
        ...withQrCall(p, p.qrTerminalPayment.bind(p)),
        cancel: (id, body, opts) => {
          cancels.push(id);
          return p.cancel(id, body, opts);
        },
      }),
    });
    fixture.demo.platform.faults.set('qrcode', { latencyMs: 400, times: 1 });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WA-ABORT-OUT',
      amount: 2_700,
      currency: 'EUR',
    });
    const id = started.clientTransactionId;
    await untilTrue(`${id} in flight in the journal`, () => t.journal.get(id)?.state === 'in_flight');
    const aborted = await t.service.abortSale(id);
    const serverId = fixture.demo.platform.payments.transaction(id)?.serverTransactionId;
    expect(serverId).toBeDefined();
    expect(cancels).toEqual([serverId]);
    const cancel = t.service.list().find((v) => v.kind === 'cancel' && v.relatedClientTransactionId === id);
    await fixture.final(t, cancel ?? aborted);
    expect(await t.service.get(id)).toMatchObject({ state: 'cancelled', cancelledAmount: 2_700 });
    expect(fixture.demo.platform.payments.netCharged(id)).toBe(0);
  });

  it('refused by the platform (4xx): failed with its reason, nothing charged', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('qrcode', {
      status: 422,
      errorCode: 'WALLET_CODE_INVALID',
      errorMessage: 'the scanned code is not valid',
      times: 1,
    });
    const started = await t.service.startSale({
      method: 'walletB',
      scenario: 'MerchantScan',
      via: 'qrTerminal',
      walletId: 'WB-BAD',
      amount: 800,
      currency: 'EUR',
    });
    expect(await started.done).toMatchObject({
      state: 'failed',
      message: /the platform refused the sale: the scanned code is not valid; nothing was charged/,
    });
    expect(ledgerOf(started.clientTransactionId)).toEqual([]);
  });
});

describe('terminal QR call: request checks', () => {
  it('refused before anything is journaled: not a wallet, not a merchant scan, an order without the terminal QR call, a bad order or via', async () => {
    t = await fixture.startTerminal();
    const bad = [
      { method: 'card', via: 'qrTerminal', amount: 100, currency: 'EUR' },
      { method: 'moto', via: 'qrTerminal', amount: 100, currency: 'EUR', moto: { email: 'a@b.example' } },
      { method: 'walletA', via: 'qrTerminal', amount: 100, currency: 'EUR' },
      { method: 'walletB', scenario: 'ConsumerScan', via: 'qrTerminal', amount: 100, currency: 'EUR' },
      { method: 'walletA', scenario: 'MerchantScan', amount: 100, currency: 'EUR', order: { orderId: 'O-1' } },
      {
        method: 'walletA',
        scenario: 'MerchantScan',
        via: 'qrTerminal',
        amount: 100,
        currency: 'EUR',
        order: { orderId: '  ' },
      },
      {
        method: 'walletA',
        scenario: 'MerchantScan',
        via: 'qrTerminal',
        amount: 100,
        currency: 'EUR',
        order: { orderId: 'O-1', orderDescription: 'x'.repeat(257) },
      },
      { method: 'walletA', scenario: 'MerchantScan', via: 'fax', amount: 100, currency: 'EUR' },
    ];
    const messages: string[] = [];
    for (const req of bad) {
      const err = await t.service.startSale(req as never).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'INPUT_INVALID' });
      messages.push((err as Error).message);
    }
    expect(messages[0]).toBe(
      'the terminal QR call (via qrTerminal) is for walletA and walletB merchant-scan sales only, not card',
    );
    expect(messages[2]).toBe(
      'the terminal QR call (via qrTerminal) needs scenario MerchantScan: the terminal scans the customer code',
    );
    expect(messages[4]).toBe('order applies to the terminal QR call (via qrTerminal) only');
    expect(t.service.list()).toEqual([]);
    expect(t.devices.scanner.calls).toEqual([]);
  });

  it('the local API body takes via and order and passes them to the sale', () => {
    const body = saleBodySchema.parse({
      method: 'walletA',
      scenario: 'MerchantScan',
      amount: '12.34',
      currency: 'EUR',
      walletId: 'W-1',
      via: 'qrTerminal',
      order: { orderId: 'O-9', orderDescription: 'lunch' },
    });
    expect(toSaleRequest(body, 'EUR')).toEqual({
      method: 'walletA',
      scenario: 'MerchantScan',
      amount: 1_234,
      currency: 'EUR',
      walletId: 'W-1',
      via: 'qrTerminal',
      order: { orderId: 'O-9', orderDescription: 'lunch' },
    });
    expect(saleBodySchema.safeParse({ method: 'walletA', amount: '1', via: 'sms' }).success).toBe(false);
    expect(
      saleBodySchema.safeParse({ method: 'walletA', amount: '1', order: { orderId: 'O', extra: 1 } }).success,
    ).toBe(false);
  });
});
