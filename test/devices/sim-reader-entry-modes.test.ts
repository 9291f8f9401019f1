import { afterEach, describe, expect, it } from 'vitest';
import { simRig, type SimRig } from './sim-rig.js';

let rig: SimRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

const CARD_MODES = ['ContactChip', 'ContactlessChip', 'Magstripe'] as const;

/**
 * The simulated reader reads a card only the way the startPayment asks
 * (docs/serial-protocol.md, "Card reader", entryModes), over MockBinding with the agent's
 * own driver: manual entry and MOTO ask for Keyed alone.
 */
describe('simulated reader honours the requested entry modes', () => {
  it('answers a Keyed request with a keyed read: no card presented, no PIN, never approved offline', async () => {
    rig = await simRig();
    // Even a card scripted for an online PIN and contactless is keyed in when Keyed is all that is asked.
    rig.sim.reader.nextCard({ delayMs: 0, onlinePin: true, entryMode: 'ContactlessChip' });
    const result = await rig.peripherals.reader.readCard({
      amount: 1234,
      currency: 'EUR',
      entryModes: ['Keyed'],
      offlineAllowed: true,
    });
    expect(result).toMatchObject({
      outcome: 'ok',
      entryMode: 'Keyed',
      card: { maskedPan: expect.stringMatching(/^\d{6}\*+\d{4}$/) },
    });
    expect(result.outcome === 'ok' && result.pin).toBeFalsy();
    expect(result.outcome === 'ok' && result.offlineApproved).toBeFalsy();
    const steps = rig.events.of('reader.progress').map((p) => p.step);
    expect(steps).not.toContain('cardPresented');
    expect(steps).not.toContain('pinRequested');
  });

  it('keyed with the default card (the demo: nothing scripted) is keyed too', async () => {
    rig = await simRig();
    rig.sim.reader.setDefaultCard({ delayMs: 0 });
    const result = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: ['Keyed'],
      offlineAllowed: false,
    });
    expect(result).toMatchObject({ outcome: 'ok', entryMode: 'Keyed' });
  });

  it('a card sale still reads contactless by default, and a scripted mode the sale asked for', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0 });
    expect(
      await rig.peripherals.reader.readCard({
        amount: 500,
        currency: 'EUR',
        entryModes: [...CARD_MODES],
        offlineAllowed: false,
      }),
    ).toMatchObject({ outcome: 'ok', entryMode: 'ContactlessChip' });
    rig.sim.reader.nextCard({ delayMs: 0, entryMode: 'Magstripe' });
    expect(
      await rig.peripherals.reader.readCard({
        amount: 500,
        currency: 'EUR',
        entryModes: [...CARD_MODES],
        offlineAllowed: false,
      }),
    ).toMatchObject({ outcome: 'ok', entryMode: 'Magstripe' });
  });

  it('a scripted mode the sale did not ask for is replaced by the first one asked', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0, entryMode: 'Keyed' });
    expect(
      await rig.peripherals.reader.readCard({
        amount: 500,
        currency: 'EUR',
        entryModes: ['ContactChip', 'Magstripe'],
        offlineAllowed: false,
      }),
    ).toMatchObject({ outcome: 'ok', entryMode: 'ContactChip' });
  });

  it('a magstripe read never approves offline, a chip read does when allowed', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0, entryMode: 'Magstripe' });
    const swiped = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: [...CARD_MODES],
      offlineAllowed: true,
    });
    expect(swiped.outcome === 'ok' && swiped.offlineApproved).toBeFalsy();
    rig.sim.reader.nextCard({ delayMs: 0, entryMode: 'ContactChip' });
    expect(
      await rig.peripherals.reader.readCard({
        amount: 500,
        currency: 'EUR',
        entryModes: [...CARD_MODES],
        offlineAllowed: true,
      }),
    ).toMatchObject({ outcome: 'ok', offlineApproved: true });
  });
});
