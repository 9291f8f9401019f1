import { describe, expect, it } from 'vitest';
import { testLogger } from '../helpers/log-sink.js';
import { useDemoPlatform } from '../helpers/payment-terminal.js';
import { untilTrue } from '../helpers/wait.js';

// A late write never turns an outcome the journal holds into another one
// (docs/journal.md, "Journal", state moves): flows that read a row, wait for the
// platform and then write, against the demo platform.

const fixture = useDemoPlatform();

describe('late writes on a finished sale', () => {
  it('a status poll answered "pending" before the customer paid does not send the paid wallet sale back to waiting', async () => {
    const { log, sink } = testLogger('debug');
    const t = await fixture.startTerminal({ log });
    const started = await t.service.startSale({ method: 'walletA', amount: 450, currency: 'EUR' });
    await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0);
    const id = started.clientTransactionId;
    // The relay's poll left while the QR was shown; its answer comes back after the payment was adopted.
    const stale = structuredClone(fixture.demo.platform.payments.transaction(id)) as unknown as Record<string, unknown>;
    expect(stale.transactionStatus).toBe('Initialized');
    fixture.demo.platform.payments.wallet.pay(id);
    expect(await t.service.get(id, { refresh: true })).toMatchObject({ state: 'approved' });
    expect((await started.done).state).toBe('approved');

    const applied = t.service.applyStatusRecord(id, stale);
    expect(applied.view.state).toBe('approved');
    expect(applied.final).toBe(true);
    expect(t.journal.require(id)).toMatchObject({ state: 'approved', message: expect.stringMatching(/^approved/) });
    expect(sink.records().filter((r) => r.msg === 'journal refused a state move: the row keeps its state')).toEqual([
      expect.objectContaining({ clientTransactionId: id, from: 'approved', to: 'awaiting_customer' }),
    ]);
  });
});
