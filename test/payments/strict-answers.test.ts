import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { STRICT_TIME_ZONE } from '../../src/sim/platform/profile.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { useDemoPlatform, type Terminal, type TerminalOptions } from '../helpers/payment-terminal.js';

/*
 * Answers from the contract's extremes (docs/platform-contract.md, "Tolerance of answers"):
 * these tests need the strict demo platform whatever the run's profile, so they switch it
 * themselves and give the terminal the platform's time zone (STRICT_TIME_ZONE).
 */
const fixture = useDemoPlatform();
let t: Terminal;

beforeEach(() => {
  fixture.demo.platform.context.profile.set('strict');
});
afterEach(() => {
  fixture.demo.platform.context.profile.set(testSimProfile());
});

const ledgerOf = (id: string) =>
  fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);

function startStrictTerminal(opts: TerminalOptions = {}): Promise<Terminal> {
  return fixture.startTerminal({ ...opts, config: { ...opts.config, platform: { timeZone: STRICT_TIME_ZONE } } });
}

/** The platform client with every call passed through, and the answers and calls recorded. */
function recording(
  p: PaymentsPlatform,
  seen: { answers: Array<Record<string, unknown>>; calls: string[] },
): PaymentsPlatform {
  const wrap =
    <A extends unknown[], R>(name: string, f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      seen.calls.push(name);
      const r = await f(...args);
      seen.answers.push(r as Record<string, unknown>);
      return r;
    };
  return {
    process: wrap('process', p.process.bind(p)),
    capture: wrap('capture', p.capture.bind(p)),
    captureAll: wrap('captureAll', p.captureAll.bind(p)),
    refund: wrap('refund', p.refund.bind(p)),
    cancel: wrap('cancel', p.cancel.bind(p)),
    allowedOperations: wrap('allowedOperations', p.allowedOperations.bind(p)),
    status: wrap('status', p.status.bind(p)),
    refundByWeb: wrap('refundByWeb', p.refundByWeb.bind(p)),
    qrTerminalPayment: wrap('qrTerminalPayment', p.qrTerminalPayment.bind(p)),
  };
}

describe("answers from the contract's extremes (strict demo platform)", () => {
  it('a sale whose process answer carries nulls, unknown fields and an unknown event type is approved, not looked up, not reversed', async () => {
    const seen = { answers: [] as Array<Record<string, unknown>>, calls: [] as string[] };
    t = await startStrictTerminal({ wrap: (p) => recording(p, seen) });
    const started = await t.service.startSale({ method: 'card', amount: 1_234, currency: 'EUR' });
    const view = await started.done;
    // An immediate capture answered Accepted, the capture in its event only: captured once, from the event.
    expect(view).toMatchObject({ state: 'approved', platformStatus: 'Accepted', capturedAmount: 1_234 });
    expect(seen.calls).toEqual(['process']);
    // The answer really was from the extremes: nulls, unknown fields, an unknown event type, 12-hour times.
    const answer = seen.answers[0] as {
      relatedServerTransactionId: unknown;
      platformTraceId: unknown;
      events: Array<Record<string, unknown>>;
    };
    expect(answer.relatedServerTransactionId).toBeNull();
    expect(answer.platformTraceId).toEqual(expect.any(String));
    expect(answer.events.map((e) => e.eventType)).toContain('platformRiskAssessment');
    expect(answer.events[0]?.cancelReason).toBeNull();
    expect(answer.events[0]?.serverProcessingDateTime).toMatch(/^\d{1,2}\/\d{1,2}\/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M$/);
    // The unknown event is kept in the journal and relayed like the others.
    expect(view.events.map((e) => e.eventType)).toContain('platformRiskAssessment');
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
    expect(t.journal.related(started.clientTransactionId)).toEqual([]);
  });

  it('a 2xx whose essentials cannot be read (status and server id null) is looked up, not reversed; the sale is adopted', async () => {
    const seen = { answers: [] as Array<Record<string, unknown>>, calls: [] as string[] };
    t = await startStrictTerminal({ wrap: (p) => recording(p, seen) });
    fixture.demo.platform.faults.set('process', {
      status: 200,
      afterRecord: true,
      rawBody: JSON.stringify({
        serverTransactionId: null,
        transactionStatus: null,
        events: null,
        note: 'essentials lost',
      }),
      times: 1,
    });
    const started = await t.service.startSale({ method: 'card', amount: 2_345, currency: 'EUR' });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'approved', platformStatus: 'Accepted', capturedAmount: 2_345 });
    expect(view.serverTransactionId).toEqual(expect.any(String));
    expect(seen.calls[0]).toBe('process');
    expect(seen.calls).toContain('status');
    expect(seen.calls).not.toContain('cancel');
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
    expect(t.journal.related(started.clientTransactionId)).toEqual([]);
  });

  it('a partial capture whose result event gives the amount as a `value` string records the amount captured', async () => {
    t = await startStrictTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = (
      await (
        await t.service.startSale({ method: 'card', amount: 4_000, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    expect(await t.service.get(sale)).toMatchObject({
      state: 'approved',
      platformStatus: 'Accepted',
      capturedAmount: 0,
    });
    expect(await t.service.capture(sale, { amount: 1_500 })).toMatchObject({ kind: 'capture', state: 'approved' });
    const captured = await t.service.get(sale);
    // Strict keeps a captured sale's status Accepted: the capture event says what was captured.
    expect(captured).toMatchObject({ platformStatus: 'Accepted', capturedAmount: 1_500 });
    const captureEvent = captured.events.find((e) => e.eventType === 'cardCaptureResult');
    expect(captureEvent?.captureAmount).toEqual({ value: '1500', currency: 'EUR' });
    expect(fixture.demo.platform.payments.netCharged(sale)).toBe(1_500);
  });
});
