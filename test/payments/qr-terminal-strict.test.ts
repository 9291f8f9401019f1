import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { walletACancelDeadline } from '../../src/payments/rules.js';
import { STRICT_TIME_ZONE } from '../../src/sim/platform/profile.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useDemoPlatform, type Terminal, type TerminalOptions } from '../helpers/payment-terminal.js';
import { untilTrue } from '../helpers/wait.js';

/*
 * The terminal QR call against the strict demo platform whatever the run's profile
 * (docs/payments.md, "Wallet QR, merchant scan" and "Demo platform"): the payment API
 * does not know the client id a QR call gave (only the server id), and answers a status
 * call for an id it does not know with 400. Nothing the platform did not say may be told to
 * the clerk: "nothing was charged" only on its word.
 */
const fixture = useDemoPlatform();
let t: Terminal;
let wall = Date.now();
const cleanups: Array<() => void> = [];

beforeEach(() => {
  fixture.demo.platform.context.profile.set('strict');
  wall = Date.now();
});
afterEach(() => {
  fixture.demo.platform.context.profile.set(testSimProfile());
  while (cleanups.length > 0) cleanups.pop()?.();
});

const NOT_CHARGED = /nothing was charged|nothing is charged/;
const ledgerOf = (id: string) =>
  fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);
const netCharged = (id: string): number => fixture.demo.platform.payments.netCharged(id);

function startStrictTerminal(opts: TerminalOptions = {}): Promise<Terminal> {
  return fixture.startTerminal({
    now: () => wall,
    ...opts,
    config: { ...opts.config, platform: { timeZone: STRICT_TIME_ZONE } },
  });
}

/** Waits (bounded) until `check` holds; the caller asserts afterwards, so a red run says what it saw. */

/** Every message this sale was announced with on the bus (what clerk and register were told). */
function toldFor(id: string): string[] {
  return t.events.flatMap((e) => {
    if (e.type !== 'transaction.updated') return [];
    const data = e.data as { clientTransactionId?: unknown; message?: unknown };
    return data.clientTransactionId === id && typeof data.message === 'string' ? [data.message] : [];
  });
}

/** The platform client with the cancels' path ids recorded. */
function recordingCancels(p: PaymentsPlatform, ids: string[]): PaymentsPlatform {
  return {
    process: p.process.bind(p),
    qrTerminalPayment: p.qrTerminalPayment.bind(p),
    capture: p.capture.bind(p),
    captureAll: p.captureAll.bind(p),
    refund: p.refund.bind(p),
    cancel: (id, body, opts) => {
      ids.push(id);
      return p.cancel(id, body, opts);
    },
    allowedOperations: p.allowedOperations.bind(p),
    status: p.status.bind(p),
    refundByWeb: p.refundByWeb.bind(p),
  };
}

const sale = (over: Record<string, unknown> = {}) => ({
  method: 'walletA' as const,
  scenario: 'MerchantScan' as const,
  via: 'qrTerminal' as const,
  amount: 3_000,
  currency: 'EUR',
  ...over,
});

describe('terminal QR call whose ids the payment API does not know (strict)', () => {
  it('answer lost after the platform charged: never "nothing was charged", checked until the window closes, then needs attention; charged once', async () => {
    t = await startStrictTerminal();
    fixture.demo.platform.faults.set('qrcode', { drop: 'after', times: 1 });
    const started = await t.service.startSale(sale({ walletId: 'WA-LOST-STRICT' }));
    const id = started.clientTransactionId;
    await untilTrue(
      `${id} being checked or settled`,
      () => t.journal.get(id)?.state !== 'in_flight' || /being checked/.test(t.journal.get(id)?.message ?? ''),
    );
    expect(t.journal.get(id)).toMatchObject({
      state: 'in_flight',
      message: expect.stringMatching(/outcome being checked .*do not repeat the sale/),
    });
    expect(netCharged(id)).toBe(3_000);
    // The platform's window for the sale closes without its word: a person settles it.
    wall = walletACancelDeadline(Date.parse(t.journal.require(id).clientDateTime)) + 1;
    await untilTrue(`${id} out of flight`, () => t.journal.get(id)?.state !== 'in_flight');
    expect(t.journal.get(id)).toMatchObject({
      state: 'needs_attention',
      message: expect.stringMatching(/never gave the outcome .*refund it there if it was charged/),
    });
    expect(toldFor(id).filter((m) => NOT_CHARGED.test(m))).toEqual([]);
    expect(ledgerOf(id).map((l) => [l.kind, l.amount])).toEqual([['sale', 3_000]]);
  });

  it('a sale being checked is asked again in the background: once the payment API shows it, its record is adopted', async () => {
    t = await startStrictTerminal();
    fixture.demo.platform.faults.set('qrcode', { drop: 'after', times: 1 });
    const started = await t.service.startSale(sale({ walletId: 'WA-LATER', amount: 3_300 }));
    const id = started.clientTransactionId;
    await untilTrue(
      `${id} being checked or settled`,
      () => t.journal.get(id)?.state !== 'in_flight' || /being checked/.test(t.journal.get(id)?.message ?? ''),
    );
    expect(t.journal.get(id)).toMatchObject({ state: 'in_flight', message: expect.stringMatching(/being checked/) });
    // The payment API learns the QR call's client id (the standard profile knows it): the next look finds the sale.
    fixture.demo.platform.context.profile.set('standard');
    expect(await started.done).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect(t.journal.get(id)?.serverTransactionId).toBe(
      fixture.demo.platform.payments.transaction(id)?.serverTransactionId,
    );
    expect(ledgerOf(id).map((l) => l.kind)).toEqual(['sale']);
  });

  it('an answer without a status but with its server id: looked up by that id and adopted', async () => {
    t = await startStrictTerminal();
    fixture.demo.platform.faults.set('qrcode', { omit: ['transactionStatus'], times: 1 });
    const started = await t.service.startSale(sale({ walletId: 'WA-NO-STATUS', amount: 700 }));
    const view = await started.done;
    expect(view).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect(view.serverTransactionId).toBe(
      fixture.demo.platform.payments.transaction(started.clientTransactionId)?.serverTransactionId,
    );
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
  });

  it('an answer with a pending status but no server id: being checked, not waiting without a handle; an abort sends the cancel and takes its answer', async () => {
    const cancels: string[] = [];
    t = await startStrictTerminal({ wrap: (p) => recordingCancels(p, cancels) });
    fixture.demo.platform.faults.set('qrcode', { omit: ['serverTransactionId'], times: 1 });
    const started = await t.service.startSale(sale({ method: 'walletB', walletId: 'WB-NO-ID', amount: 1_300 }));
    const id = started.clientTransactionId;
    await untilTrue(
      `${id} being checked, waiting for the customer or tried again`,
      () =>
        /being checked/.test(t.journal.get(id)?.message ?? '') ||
        t.journal.get(id)?.state === 'awaiting_customer' ||
        (t.journal.get(id)?.attempts ?? 0) > 1,
    );
    expect(t.journal.get(id)).toMatchObject({ state: 'in_flight', message: expect.stringMatching(/being checked/) });
    // The clerk aborts: the cancel goes out (by the only id there is); the platform does not know it,
    // so its answer is no word on the money: the sale stays being checked.
    const aborted = await t.service.abortSale(id).catch((e: unknown) => e);
    expect(cancels).toEqual([id]);
    expect(aborted).toMatchObject({
      code: 'PAYMENT_RULE',
      message: expect.stringMatching(/outcome is still being checked/),
    });
    expect(t.journal.get(id)).toMatchObject({ state: 'in_flight', message: expect.stringMatching(/being checked/) });
    expect(toldFor(id).filter((m) => NOT_CHARGED.test(m))).toEqual([]);
    // The payment is at the platform, waiting for the wallet; nothing gave it back.
    expect(fixture.demo.platform.payments.transaction(id)).toMatchObject({ transactionType: 'Payment' });
    expect(ledgerOf(id).filter((l) => l.effect < 0)).toEqual([]);
  });

  it("an abort of a QR sale waiting for the wallet cancels it by its server id: cancelled on the platform's word, nothing charged", async () => {
    const cancels: string[] = [];
    t = await startStrictTerminal({ wrap: (p) => recordingCancels(p, cancels) });
    const started = await t.service.startSale(sale({ method: 'walletB', walletId: 'WB-ABORT', amount: 1_100 }));
    const id = started.clientTransactionId;
    await untilTrue(`${id} waiting for the customer`, () => t.journal.get(id)?.state === 'awaiting_customer');
    const serverId = t.journal.require(id).serverTransactionId;
    expect(serverId).toBeDefined();
    await t.service.abortSale(id);
    expect(cancels).toEqual([serverId]);
    const cancel = t.service.list().find((v) => v.kind === 'cancel' && v.relatedClientTransactionId === id);
    expect(cancel).toBeDefined();
    await fixture.final(t, cancel as NonNullable<typeof cancel>);
    expect(await t.service.get(id)).toMatchObject({ state: 'cancelled', cancelledAmount: 1_100 });
    expect(netCharged(id)).toBe(0);
  });

  it('after a restart: a QR call left in flight is checked again, never counted as not done; one whose server id is known is adopted', async () => {
    const dir = tempDir('qr-restart-');
    cleanups.push(dir.cleanup);
    const dataDir = `${dir.dir}/data`;
    const first = await startStrictTerminal({ dataDir });
    const body = (clientTransactionId: string, amount: number) => ({
      paymentType: 'walletA' as const,
      paymentScenario: 'MerchantScan' as const,
      scannedPaymentId: `WA-${clientTransactionId}`,
      clientTransactionId,
      paymentAmount: { amount, currency: 'EUR' },
      order: { orderId: clientTransactionId, orderDescription: '' },
    });
    // What a crash leaves: the row in flight (written before the call), the payment made at the platform.
    const row = (clientTransactionId: string, amount: number, serverTransactionId?: string) => ({
      clientTransactionId,
      kind: 'sale' as const,
      amount,
      currency: 'EUR',
      method: 'walletA' as const,
      scenario: 'MerchantScan' as const,
      via: 'qrTerminal' as const,
      state: 'in_flight' as const,
      attempts: 1,
      clientDateTime: new Date(wall).toISOString(),
      message: 'sent to the platform (terminal QR call)',
      ...(serverTransactionId !== undefined ? { serverTransactionId } : {}),
    });
    first.journal.insert(row('qr-crash-1', 2_100));
    await first.platform.qrTerminalPayment(body('qr-crash-1', 2_100));
    const known = (await first.platform.qrTerminalPayment(body('qr-crash-2', 2_200))) as {
      serverTransactionId: string;
    };
    first.journal.insert(row('qr-crash-2', 2_200, known.serverTransactionId));
    await first.close();

    t = await startStrictTerminal({ dataDir });
    await t.service.recover();
    expect(t.journal.get('qr-crash-1')).toMatchObject({
      state: 'in_flight',
      message: expect.stringMatching(/being checked/),
    });
    expect(t.journal.get('qr-crash-2')).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    wall = walletACancelDeadline(Date.parse(t.journal.require('qr-crash-1').clientDateTime)) + 1;
    await untilTrue('qr-crash-1 out of flight', () => t.journal.get('qr-crash-1')?.state !== 'in_flight');
    expect(t.journal.get('qr-crash-1')).toMatchObject({ state: 'needs_attention' });
    expect(toldFor('qr-crash-1').filter((m) => NOT_CHARGED.test(m))).toEqual([]);
    expect(netCharged('qr-crash-1')).toBe(2_100);
    expect(netCharged('qr-crash-2')).toBe(2_200);
  });
});
