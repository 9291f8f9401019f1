import { describe, expect, it } from 'vitest';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { testSimProfile } from '../helpers/demo-platform.js';

// A status word the agent does not know (docs/platform-contract.md, "Tolerance of answers",
// status values): shown as the platform's word with "check before handing over goods",
// needing attention, never read as declined or "nothing charged", and followed until the
// platform says more.

const fixture = useDemoPlatform();
let t: Terminal;

/** The platform's own record of a sale, as a status call would answer it in the standard profile. */
function record(id: string): Record<string, unknown> {
  const tx = fixture.demo.platform.payments.transaction(id);
  if (tx === undefined) throw new Error(`the platform has no ${id}`);
  return structuredClone(tx) as unknown as Record<string, unknown>;
}

const UNKNOWN_MESSAGE = 'the platform says Completed: check before handing over goods';

describe('a sale answered with a status the agent does not know', () => {
  it('card sale: needs attention with the platform word, "See staff" on the reader, followed, and adopted once the platform says Captured', async () => {
    t = await fixture.startTerminal();
    fixture.demo.platform.faults.set('process', { transactionStatus: 'Completed', times: 1 });
    fixture.demo.platform.faults.set('status', { transactionStatus: 'Completed' });
    const started = await t.service.startSale({ method: 'card', amount: 1500, currency: 'EUR' });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'needs_attention', platformStatus: 'Completed', message: UNKNOWN_MESSAGE });
    expect(view.message).not.toMatch(/declined|nothing (was |is )?charged|failed/i);
    // Not told "declined" or "not approved": the clerk checks first.
    expect(t.devices.reader.results).toEqual([{ approved: false, text: 'See staff' }]);
    expect(t.devices.display.texts.at(-1)).toEqual(['15.00 EUR', 'See staff']);
    // Followed: the relay asks for it (across a restart too, from pendingTracking).
    expect(t.service.pendingTracking().map((p) => p.clientTransactionId)).toContain(started.clientTransactionId);
    const still = t.service.applyStatusRecord(started.clientTransactionId, {
      ...record(started.clientTransactionId),
      transactionStatus: 'Completed',
    });
    expect(still.final).toBe(false);
    expect(still.view).toMatchObject({ state: 'needs_attention', message: UNKNOWN_MESSAGE });

    fixture.demo.platform.faults.clear('status');
    const later = await t.service.get(started.clientTransactionId, { refresh: true });
    expect(later).toMatchObject({
      state: 'approved',
      capturedAmount: 1500,
      platformStatus: testSimProfile() === 'strict' ? 'Accepted' : 'Captured',
    });
    expect(t.service.pendingTracking().map((p) => p.clientTransactionId)).not.toContain(started.clientTransactionId);
  });

  it('the relay applying a known status ends the following: final once the platform says Accepted', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    fixture.demo.platform.faults.set('process', { transactionStatus: 'Settled', times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 700, currency: 'EUR', merchantId: 'm-1002' });
    const view = await started.done;
    expect(view).toMatchObject({
      state: 'needs_attention',
      message: 'the platform says Settled: check before handing over goods',
    });
    const applied = t.service.applyStatusRecord(started.clientTransactionId, record(started.clientTransactionId));
    expect(applied.final).toBe(true);
    expect(applied.view).toMatchObject({ state: 'approved', capturedAmount: 0 });
  });
});
