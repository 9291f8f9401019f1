import { describe, expect, it } from 'vitest';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';

/*
 * A platform that answers an id it does not know with 400 or 422 instead of 404
 * (docs/platform-contract.md, "Decisions where the spec is silent", unknown transaction id):
 * the status call's "not found" either way, bounded by the same grace; never a sale left
 * reversing for good. The strict demo platform answers 400 for the status call; the fault
 * makes every profile do it (and 422, and the cancel too).
 */
const fixture = useDemoPlatform();
let t: Terminal;

const ledgerOf = (id: string) =>
  fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);

/** The platform client with the first status call failing (the lookup fails: the sale is reversed). */
function firstStatusFails(p: PaymentsPlatform): PaymentsPlatform {
  let failed = false;
  return {
    process: p.process.bind(p),
    qrTerminalPayment: p.qrTerminalPayment.bind(p),
    capture: p.capture.bind(p),
    captureAll: p.captureAll.bind(p),
    refund: p.refund.bind(p),
    cancel: p.cancel.bind(p),
    allowedOperations: p.allowedOperations.bind(p),
    status: (id, opts) => {
      if (failed) return p.status(id, opts);
      failed = true;
      return Promise.reject(
        new PlatformError('the platform failed', {
          category: 'server',
          status: 503,
          operation: 'status',
          method: 'GET',
          outcomeUnknown: false,
        }),
      );
    },
    refundByWeb: p.refundByWeb.bind(p),
  };
}

describe('an unknown id answered 400 or 422 instead of 404', () => {
  for (const status of [400, 422] as const) {
    it(`${status} from the status call: a sale that never reached the platform ends failed after the grace, nothing charged`, async () => {
      t = await fixture.startTerminal();
      fixture.demo.platform.faults.set('status', { unknownIdStatus: status });
      fixture.demo.platform.faults.set('process', { drop: 'before', times: 1 });
      const started = await t.service.startSale({ method: 'card', amount: 1_500, currency: 'EUR' });
      expect(await started.done).toMatchObject({
        state: 'failed',
        message: 'the platform has no record of this sale: nothing was charged',
      });
      expect(ledgerOf(started.clientTransactionId)).toEqual([]);
    });
  }

  it('a reversal meeting 400 for the sale it looks up ends failed (nothing to reverse), not reversing for good', async () => {
    t = await fixture.startTerminal({ wrap: firstStatusFails });
    fixture.demo.platform.faults.set('status', { unknownIdStatus: 400 });
    fixture.demo.platform.faults.set('process', { drop: 'before', times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_600, currency: 'EUR' });
    expect((await started.done).state).toBe('reversing');
    await t.service.idle();
    expect(await t.service.get(started.clientTransactionId)).toMatchObject({
      state: 'failed',
      message: /nothing was charged/,
    });
    expect(ledgerOf(started.clientTransactionId)).toEqual([]);
  });

  it("a reversal's cancel answered 400 for an id the platform does not know is a refusal: the sale's status (400 too) settles it failed", async () => {
    t = await fixture.startTerminal({ wrap: firstStatusFails });
    // Every route by id (the cancel and the status call) answers 400 for an id it does not know.
    fixture.demo.platform.faults.set('*', { unknownIdStatus: 400 });
    fixture.demo.platform.faults.set('process', { drop: 'before', times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_700, currency: 'EUR' });
    expect((await started.done).state).toBe('reversing');
    await t.service.idle();
    expect(await t.service.get(started.clientTransactionId)).toMatchObject({
      state: 'failed',
      message: /nothing was charged/,
    });
    expect(ledgerOf(started.clientTransactionId)).toEqual([]);
  });

  it('a sale that did reach the platform is still found and adopted: only the unknown id is "not found"', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('status', { unknownIdStatus: 400 });
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_800, currency: 'EUR' });
    expect(await started.done).toMatchObject({ state: 'approved' });
    expect(ledgerOf(started.clientTransactionId).map((l) => l.kind)).toEqual(['sale']);
  });
});
