import { afterEach, describe, expect, it } from 'vitest';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { ourCancelIn } from '../../src/payments/cancel-outcome.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import type { SimProfileName } from '../../src/sim/platform/profile.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { until } from '../helpers/wait.js';

/**
 * A cancel whose answer was lost carries no id of its own: the agent finds it in the
 * sale's history (its clientDateTime and amount), the sale's status, or the bare
 * allowed-operations record, and never sends it twice (docs/platform-contract.md,
 * "Decisions where the spec is silent", recognising a cancel whose answer was lost).
 */
const fixture = useDemoPlatform();
let t: Terminal;
const profile = (name: SimProfileName): void => fixture.demo.platform.context.profile.set(name);
afterEach(() => profile(testSimProfile()));

const ledgerOf = (id: string) =>
  fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);
const cancelsAt = (id: string) => ledgerOf(id).filter((l) => l.kind === 'cancel' || l.kind === 'reversal');

/** Counts cancel calls; `strip` removes cancels from the sale's history (a platform that keeps them on the Cancel only). */
function wrapped(
  counter: { cancels: number },
  over: { strip?: boolean; allowed?: unknown } = {},
): (p: PaymentsPlatform) => PaymentsPlatform {
  return (p) => ({
    process: p.process.bind(p),
    capture: p.capture.bind(p),
    captureAll: p.captureAll.bind(p),
    refund: p.refund.bind(p),
    cancel: (id, body, o) => {
      counter.cancels++;
      return p.cancel(id, body, o);
    },
    qrTerminalPayment: p.qrTerminalPayment.bind(p),
    allowedOperations:
      over.allowed === undefined
        ? p.allowedOperations.bind(p)
        : async () => over.allowed as Awaited<ReturnType<PaymentsPlatform['allowedOperations']>>,
    status: async (id, o) => {
      const r = await p.status(id, o);
      return over.strip === true
        ? {
            ...r,
            events: r.events.filter(
              (e) => e.cancelAmount === undefined && !/cancel/i.test(`${e.eventType as string | undefined}`),
            ),
          }
        : r;
    },
    refundByWeb: p.refundByWeb.bind(p),
  });
}

async function paidWallet(amount: number): Promise<string> {
  const view = await (
    await t.service.startSale({ method: 'walletA', scenario: 'MerchantScan', walletId: 'W-9', amount, currency: 'EUR' })
  ).done;
  expect(view.state).toBe('approved');
  return view.clientTransactionId;
}

/**
 * The strict platform completes a cancel of a charged payment about 300 ms after it was
 * sent; a lookup grace past that lets the lost answer's lookup see its result.
 */
const GRACE_PAST_COMPLETION = { payments: { lookupGraceMs: 2_000 } };

describe.each(['standard', 'strict'] as const)('a cancel whose answer was lost (%s profile)', (name) => {
  it('full cancel, answer dropped after the platform recorded it: done from the sale’s history, sent once', async () => {
    const counter = { cancels: 0 };
    t = await fixture.startTerminal({ wrap: wrapped(counter), config: GRACE_PAST_COMPLETION });
    profile(name);
    const sale = await paidWallet(1_000);
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    const cancel = await t.service.cancel(sale);
    expect(cancel).toMatchObject({ kind: 'cancel', state: 'approved', amount: 1_000 });
    expect(await t.service.get(sale)).toMatchObject({ state: 'cancelled', cancelledAmount: 1_000 });
    expect(counter.cancels).toBe(1);
    expect(cancelsAt(sale).map((l) => l.amount)).toEqual([1_000]);
  });

  it('partial cancel (the sale stays Accepted): our clientDateTime and amount in its history settle it', async () => {
    const counter = { cancels: 0 };
    // Allowed operations that say nothing useful: only the history can settle it.
    t = await fixture.startTerminal({
      wrap: wrapped(counter, { allowed: { allowed: false, maxAmount: 0, currency: 'EUR' } }),
      config: GRACE_PAST_COMPLETION,
    });
    profile(name);
    const sale = await paidWallet(5_000);
    // The first cancel final before the second is sent (strict answers it pending first).
    await fixture.final(t, await t.service.cancel(sale, { amount: 1_000 }));
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    const lost = await t.service.cancel(sale, { amount: 1_000 });
    expect(lost).toMatchObject({ state: 'approved', amount: 1_000 });
    expect(await t.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 2_000 });
    expect(counter.cancels).toBe(2);
    expect(cancelsAt(sale).map((l) => l.amount)).toEqual([1_000, 1_000]);
  });

  it('a reversal whose cancel answer was lost: the next attempt finds it in the history instead of sending it again', async () => {
    const counter = { cancels: 0 };
    t = await fixture.startTerminal({ wrap: wrapped(counter), config: GRACE_PAST_COMPLETION });
    profile(name);
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    // The sale's lookup fails (the client's GET retry included): the sale is reversed.
    fixture.demo.platform.faults.set('status', { status: 503, times: 2 });
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      walletId: 'W-8',
      amount: 4_000,
      currency: 'EUR',
    });
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    expect((await started.done).state).toBe('reversing');
    await t.service.idle();
    expect(await t.service.get(started.clientTransactionId)).toMatchObject({
      state: 'reversed',
      cancelledAmount: 4_000,
    });
    expect(counter.cancels).toBe(1);
    expect(ledgerOf(started.clientTransactionId).map((l) => [l.kind, l.effect])).toEqual([
      ['sale', 4_000],
      ['reversal', -4_000],
    ]);
  });
});

describe('a platform whose sale history does not show cancels', () => {
  it('lost partial cancel: the bare allowed-operations record (maximum down by our amount) says done', async () => {
    const counter = { cancels: 0 };
    t = await fixture.startTerminal({ wrap: wrapped(counter, { strip: true }) });
    const sale = await paidWallet(5_000);
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    expect(await t.service.cancel(sale, { amount: 2_000 })).toMatchObject({ state: 'approved' });
    expect(await t.service.get(sale)).toMatchObject({ cancelledAmount: 2_000 });
    expect(counter.cancels).toBe(1);
  });

  it('cancel dropped before the platform saw it: the record still allows the whole amount, so nothing was cancelled', async () => {
    t = await fixture.startTerminal({ wrap: wrapped({ cancels: 0 }, { strip: true }) });
    const sale = await paidWallet(5_000);
    fixture.demo.platform.faults.set('cancel', { drop: 'before', times: 1 });
    await expect(t.service.cancel(sale, { amount: 2_000 })).rejects.toMatchObject({ code: 'PAYMENT_NOT_DONE' });
    expect(await t.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 0 });
    expect(cancelsAt(sale)).toEqual([]);
  });

  it('nothing the records say settles it: needs attention, never in flight for ever', async () => {
    t = await fixture.startTerminal({
      wrap: wrapped({ cancels: 0 }, { strip: true, allowed: { allowed: false, maxAmount: 0, currency: 'EUR' } }),
    });
    const sale = await paidWallet(5_000);
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    const cancel = await t.service.cancel(sale, { amount: 2_000 });
    expect(cancel).toMatchObject({
      state: 'needs_attention',
      message: /records do not show whether the cancel happened/,
    });
    expect(t.service.list().filter((v) => v.state === 'in_flight')).toEqual([]);
  });
});

describe('ourCancelIn', () => {
  const op = {
    clientTransactionId: 'c-2',
    clientDateTime: '2026-03-01T10:05:00.000Z',
    amount: 500,
    currency: 'EUR',
    cancelReason: 'Functional',
  } as unknown as JournalRow;
  const request = (over: Record<string, unknown>) => ({
    eventType: 'cancelRequest',
    cancelAmount: { amount: 500, currency: 'EUR' },
    ...over,
  });
  const result = (r: string) => ({ eventType: 'walletACancelResult', result: r });

  it('an event with our clientDateTime (with or without milliseconds) and amount is ours; its result says how it ended', () => {
    expect(
      ourCancelIn({ events: [request({ clientDateTime: '2026-03-01T10:05:00Z' }), result('Accepted')] }, op, []),
    ).toBe('accepted');
    expect(ourCancelIn({ events: [request({ clientDateTime: op.clientDateTime }), result('Refused')] }, op, [])).toBe(
      'refused',
    );
    expect(ourCancelIn({ events: [request({ clientDateTime: op.clientDateTime })] }, op, [])).toBe('unknown');
  });

  it('an amount sent as a `value` string, and null fields around it, read as the contract allows', () => {
    const valued = request({
      clientDateTime: op.clientDateTime,
      cancelAmount: { value: '500', currency: 'EUR' },
      cancelReason: null,
    });
    expect(
      ourCancelIn(
        {
          events: [
            valued,
            { eventType: 'platformRiskAssessment', result: 'Passed' },
            { ...result('Failed'), resultMessage: null },
          ],
        },
        op,
        [],
      ),
    ).toBe('refused');
    expect(ourCancelIn({ events: [{ ...valued, clientDateTime: null }, result('Accepted')] }, op, [])).toBe('accepted');
  });

  it("another clientDateTime is someone else's cancel; undated ones count only beyond our other done cancels of that amount", () => {
    expect(
      ourCancelIn({ events: [request({ clientDateTime: '2026-03-01T09:00:00.000Z' }), result('Accepted')] }, op, []),
    ).toBeUndefined();
    const earlier = {
      ...op,
      clientTransactionId: 'c-1',
      clientDateTime: '2026-03-01T10:00:00.000Z',
      state: 'approved',
    } as JournalRow;
    expect(ourCancelIn({ events: [request({}), result('Accepted')] }, op, [earlier])).toBeUndefined();
    expect(
      ourCancelIn({ events: [request({}), result('Accepted'), request({}), result('Accepted')] }, op, [earlier]),
    ).toBe('accepted');
    expect(
      ourCancelIn({ events: [request({ cancelAmount: { amount: 400, currency: 'EUR' } })] }, op, []),
    ).toBeUndefined();
  });
});

describe('a lost cancel whose result comes after the lookup grace (strict profile)', () => {
  /** A grace shorter than the strict platform's completion: the lookup sees our cancel before its result. */
  const SHORT_GRACE = { payments: { lookupGraceMs: 50 } };

  afterEach(() => fixture.demo.platform.payments.failNext(0));

  it('is being checked, not handed to a person, until the result comes: then done, sent once', async () => {
    const counter = { cancels: 0 };
    t = await fixture.startTerminal({ wrap: wrapped(counter), config: SHORT_GRACE });
    profile('strict');
    const sale = await paidWallet(1_200);
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    const cancel = await t.service.cancel(sale);
    expect(cancel).toMatchObject({ state: 'in_flight', message: /not its result yet: being checked/ });
    await until(
      `${cancel.clientTransactionId} not in_flight`,
      () => t.service.get(cancel.clientTransactionId),
      (v) => v.state !== 'in_flight',
    );
    expect(await t.service.get(cancel.clientTransactionId)).toMatchObject({ state: 'approved' });
    expect(await t.service.get(sale)).toMatchObject({ state: 'cancelled', cancelledAmount: 1_200 });
    expect(counter.cancels).toBe(1);
  });

  it('its result a failure: nothing was cancelled, the sale stays charged and can be cancelled again', async () => {
    t = await fixture.startTerminal({ wrap: wrapped({ cancels: 0 }), config: SHORT_GRACE });
    profile('strict');
    const sale = await paidWallet(1_300);
    fixture.demo.platform.payments.failNext(1);
    fixture.demo.platform.faults.set('cancel', { drop: 'after', times: 1 });
    const cancel = await t.service.cancel(sale);
    expect(cancel.state).toBe('in_flight');
    await until(
      `${cancel.clientTransactionId} not in_flight`,
      () => t.service.get(cancel.clientTransactionId),
      (v) => v.state !== 'in_flight',
    );
    expect(await t.service.get(cancel.clientTransactionId)).toMatchObject({
      state: 'failed',
      message: /Cancel failed at the wallet provider/,
    });
    expect(await t.service.get(sale)).toMatchObject({ state: 'approved', cancelledAmount: 0 });
    expect(cancelsAt(sale)).toEqual([]);
  });
});
