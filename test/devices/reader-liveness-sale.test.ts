import { afterEach, describe, expect, it } from 'vitest';
import type { CardResult } from '../../src/devices/api.js';
import { useDemoPlatform } from '../helpers/payment-terminal.js';
import { manualClockRig, runUntilSettled, type ManualClockRig } from './manual-clock-rig.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * The clerk's view of a reader failing mid-payment (docs/serial-protocol.md, "Decisions",
 * reader liveness): the sale runs against the demo platform, its card read goes to the
 * real serial driver and the simulated reader over MockBinding on a ManualClock.
 */
const fixture = useDemoPlatform();
let rig: ManualClockRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

describe('a card sale whose reader fails after the card and PIN', () => {
  it.each([
    ['silentAfterPin', 'the card reader stopped answering: nothing was charged'],
    ['damagedResult', "the card reader's messages arrived damaged: nothing was charged"],
  ] as const)(
    '%s: the sale fails within seconds with the cause named, not "no card was presented"',
    async (fault, message) => {
      rig = await manualClockRig();
      const r = rig;
      const t = await fixture.startTerminal();
      let reading: Promise<CardResult> | undefined;
      t.devices.reader.next((req) => (reading = r.peripherals.reader.readCard(req)));
      r.sim.reader.nextCard({ entryMode: 'ContactChip', delayMs: 200, pinDelayMs: 300, fault });
      const started = await t.service.startSale({ method: 'card', amount: 1234, currency: 'EUR' });
      await untilTrue('the sale to ask the reader for a card', () => reading !== undefined, { everyMs: 5 });
      const { elapsedMs } = await runUntilSettled(r.clock, reading!, 120_000);
      expect(elapsedMs).toBeLessThan(10_000);
      const view = await started.done;
      expect(view).toMatchObject({ state: 'failed', message });
      expect(view.message).not.toMatch(/no card was presented/);
      expect(fixture.demo.platform.payments.transaction(started.clientTransactionId)).toBeUndefined();
    },
  );
});
