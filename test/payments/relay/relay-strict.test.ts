import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/index.js';
import { createEventRelay, type EventRelay } from '../../../src/payments/relay/relay.js';
import { STRICT_TIME_ZONE } from '../../../src/sim/platform/profile.js';
import { testSimProfile } from '../../helpers/demo-platform.js';
import { useDemoPlatform, type Terminal } from '../../helpers/payment-terminal.js';
import { untilTrue } from '../../helpers/wait.js';

/*
 * The relay against the strict demo platform (docs/demo-platform.md, "Demo platform"): QR
 * expiry times in the 12-hour server form, in the platform's zone west of UTC. The
 * platform's clock (and the terminal's with it) is set to 15 December 2026, 20:00 UTC:
 * noon in Los Angeles, so the expiry reads "12/15/2026 12:05:00 PM".
 */
const fixture = useDemoPlatform();
let t: Terminal;
let relay: EventRelay | undefined;
const target = Date.parse('2026-12-15T20:00:00.300Z');

beforeEach(() => {
  fixture.demo.platform.context.profile.set('strict');
});
afterEach(() => {
  relay?.stop();
  relay = undefined;
  fixture.demo.platform.context.profile.set(testSimProfile());
});

describe('QR expiry from the strict platform', () => {
  it("a 12-hour expiry in the platform's zone (12:05:00 PM in Los Angeles) does not expire the sale early: it is paid and approved", async () => {
    const offset = target - Date.now();
    fixture.demo.platform.faults.clockOffsetMs = offset;
    const wall = () => Date.now() + offset;
    let statusCalls = 0;
    t = await fixture.startTerminal({ now: wall, config: { platform: { timeZone: STRICT_TIME_ZONE } } });
    relay = createEventRelay({
      store: t.service,
      fetchStatus: (id, merchantId) => {
        statusCalls++;
        return t.platform.status(id, merchantId !== undefined ? { merchantId } : {});
      },
      log: fixture.demo.log,
      clock: { ...systemClock(), wall },
      policy: { fastIntervalMs: 20 },
      timeZone: t.config.platform.timeZone,
    });
    relay.start();
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 1_500,
      currency: 'EUR',
    });
    await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0, { timeoutMs: 5_000 });
    const waiting = await t.service.get(started.clientTransactionId);
    expect(waiting.qr?.expireTime).toMatch(/^12\/15\/2026 12:05:0\d PM$/);
    // Several status calls later the sale is still waiting for the customer (read as UTC it would have expired 8 hours ago).
    const before = statusCalls;
    await untilTrue('five more status calls', () => statusCalls >= before + 5, { timeoutMs: 5_000 });
    expect(await t.service.get(started.clientTransactionId)).toMatchObject({ state: 'awaiting_customer' });
    expect(relay.tracked()).toEqual([started.clientTransactionId]);
    fixture.demo.platform.payments.wallet.pay(started.clientTransactionId);
    const done = await started.done;
    expect(done).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(1_500);
  });
});
