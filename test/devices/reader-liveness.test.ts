import { afterEach, describe, expect, it } from 'vitest';
import type { CardResult } from '../../src/devices/api.js';
import { manualClockRig, runUntilSettled } from './manual-clock-rig.js';

/**
 * A reader that fails mid-payment, after the card and PIN events, ends the payment within
 * seconds with the cause named (docs/serial-protocol.md, "Decisions", reader liveness),
 * not at cardTimeoutMs as "no card". Real serial I/O over MockBinding, time on a
 * ManualClock: the elapsed time asserted is simulated time, not a benchmark.
 */

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function rig(): ReturnType<typeof manualClockRig> {
  const r = await manualClockRig();
  stop = r.stop;
  return r;
}

const request = {
  amount: 1234,
  currency: 'EUR',
  entryModes: ['ContactChip' as const],
  offlineAllowed: false,
  timeoutMs: 90_000,
};

describe('a card reader failing mid-payment', () => {
  it('that stops answering after the card and PIN: the payment fails within seconds as "stopped answering"', async () => {
    const { clock, sim, peripherals, events } = await rig();
    sim.reader.nextCard({ entryMode: 'ContactChip', delayMs: 200, pinDelayMs: 300, fault: 'silentAfterPin' });
    const { value, elapsedMs } = await runUntilSettled<CardResult>(
      clock,
      peripherals.reader.readCard(request),
      120_000,
    );
    expect(events.of('reader.progress').map((p) => p.step)).toEqual(['cardPresented', 'pinRequested', 'pinEntered']);
    expect(value).toEqual({
      outcome: 'error',
      fault: 'stopped_answering',
      reason: 'the card reader stopped answering',
    });
    // Keep-alive every 2 s, given up after 4 unacknowledged sends of 500 ms: about 4.5 s.
    expect(elapsedMs).toBeLessThan(10_000);
    expect(peripherals.reader.status()).toMatchObject({ reason: expect.stringMatching(/no_ack|handshake_failed/) });
  });

  it('whose card result arrives damaged every time: the payment fails within seconds as "messages arrived damaged" and is cancelled on the reader', async () => {
    const { clock, sim, peripherals } = await rig();
    sim.reader.nextCard({ entryMode: 'ContactChip', delayMs: 200, pinDelayMs: 300, fault: 'damagedResult' });
    const session = peripherals.reader.supervisor.session;
    const { value, elapsedMs } = await runUntilSettled<CardResult>(
      clock,
      peripherals.reader.readCard(request),
      120_000,
    );
    expect(value).toEqual({
      outcome: 'error',
      fault: 'damaged_messages',
      reason: "the card reader's messages arrived damaged",
    });
    expect(elapsedMs).toBeLessThan(10_000);
    // Every copy was NAKed: 1 + 3 retransmissions of the result (and of the cancel's answer).
    expect(session?.link.counters.peerGaveUp).toBeGreaterThanOrEqual(1);
    expect(session?.link.counters.naksSent).toBeGreaterThanOrEqual(4);
    expect(sim.reader.receivedOfType('cancel')).toHaveLength(1);
    // The link itself stayed up: the reader was not dropped.
    expect(peripherals.reader.connected).toBe(true);
  });

  it('a reader that only takes long (no fault) is not failed by the keep-alive', async () => {
    const { clock, sim, peripherals } = await rig();
    sim.reader.nextCard({ entryMode: 'ContactChip', delayMs: 30_000, pinDelayMs: 20_000, onlinePin: true });
    const { value, elapsedMs } = await runUntilSettled<CardResult>(
      clock,
      peripherals.reader.readCard(request),
      120_000,
    );
    expect(value?.outcome).toBe('ok');
    expect(elapsedMs).toBeGreaterThanOrEqual(50_000);
    expect(sim.reader.receivedOfType('keepAlive').length).toBeGreaterThanOrEqual(20);
  });
});
