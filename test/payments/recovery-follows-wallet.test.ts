import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRelay } from '../../src/payments/relay/relay.js';
import { startTerminalRelay, useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * A wallet sale the agent was killed on while its request was out: at the next start the
 * relay reads what it follows at once, and start-up recovery looks the sale up only after
 * the first token (docs/payments.md, "Start-up recovery"). A sale recovery finds still
 * waiting for the customer must be followed from then on, or it stays waiting for good.
 */
const fixture = useDemoPlatform();
const cleanups: Array<() => void | Promise<void>> = [];
let relay: EventRelay | undefined;

afterEach(async () => {
  relay?.stop();
  relay = undefined;
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('start-up recovery of a wallet sale still waiting for the customer', () => {
  it("hands it to the relay, which follows it to the platform's outcome", async () => {
    const tmp = tempDir('recovery-wallet-');
    cleanups.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');

    // What a kill leaves: the row in flight on disk, the QR payment recorded at the platform.
    const first: Terminal = await fixture.startTerminal({ dataDir });
    const id = randomUUID();
    const clientDateTime = new Date().toISOString();
    first.journal.insert({
      clientTransactionId: id,
      kind: 'sale',
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 1_300,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime,
      attempts: 1,
    });
    await first.platform.process({
      clientDateTime,
      channel: 'instore',
      clientNewTransactionId: id,
      authorizationAmount: { amount: 1_300, currency: 'EUR' },
      instrument: { instrumentType: 'walletA', paymentScenario: 'ConsumerScan' },
    });
    await first.close();

    const t = await fixture.startTerminal({ dataDir });
    cleanups.push(() => t.close());
    // As the agent starts: the relay first, recovery after the first token.
    relay = startTerminalRelay(t, fixture.demo.log);
    expect(relay.tracked()).toEqual([]);
    await t.service.recover();
    expect(t.journal.get(id)).toMatchObject({ state: 'awaiting_customer' });
    expect(relay.tracked()).toContain(id);

    // The customer pays: the relay brings the platform's word to the row.
    fixture.demo.platform.payments.wallet.pay(id);
    await untilTrue(`${id} approved in the journal`, () => t.journal.get(id)?.state === 'approved');
    expect(fixture.demo.platform.payments.netCharged(id)).toBe(1_300);
  });
});
