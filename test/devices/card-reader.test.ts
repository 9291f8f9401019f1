import { afterEach, describe, expect, it } from 'vitest';
import { devicesConfig, simRig, type SimRig } from './sim-rig.js';
import { testLogger } from '../helpers/log-sink.js';
import { untilTrue } from '../helpers/wait.js';

let rig: SimRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

describe('card reader driver on MockBinding', () => {
  it('runs the hello handshake on open and reports connected with model and firmware', async () => {
    rig = await simRig();
    const { peripherals, events, sim } = rig;
    expect(peripherals.reader.connected).toBe(true);
    expect(peripherals.reader.info).toEqual({
      model: 'SIM-READER-1',
      serialNumber: 'SIMR0001',
      firmware: '1.4.2',
      capabilities: ['chip', 'contactless', 'magstripe', 'pin', 'offline'],
    });
    expect(events.of('device.status')).toContainEqual({
      device: 'reader',
      state: 'connected',
      reason: 'opened',
      model: 'SIM-READER-1',
      firmware: '1.4.2',
    });
    expect(sim.reader.receivedOfType('hello')).toHaveLength(1);
  });

  it('reads an approved contactless card and publishes progress', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0 });
    const result = await rig.peripherals.reader.readCard({
      amount: 1234,
      currency: 'EUR',
      entryModes: ['ContactlessChip', 'ContactChip'],
      offlineAllowed: true,
      clientTransactionId: 'tx-1',
    });
    expect(result).toMatchObject({
      outcome: 'ok',
      entryMode: 'ContactlessChip',
      card: { maskedPan: '476173******0010', scheme: 'visa', expiry: '2812' },
    });
    expect(result.outcome === 'ok' && result.pin).toBeFalsy();
    expect(rig.events.of('reader.progress')).toEqual([
      { step: 'cardPresented', clientTransactionId: 'tx-1', entryMode: 'ContactlessChip', text: 'Card presented' },
    ]);
    const start = rig.sim.reader.receivedOfType('startPayment')[0];
    expect(start).toMatchObject({
      type: 'startPayment',
      amount: 1234,
      currency: 'EUR',
      entryModes: ['ContactlessChip', 'ContactChip'],
      offlineAllowed: true,
    });
    expect(typeof start?.id).toBe('string');
  });

  it('reads a chip card with online PIN: all four progress steps and the PIN block', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0, pinDelayMs: 0, entryMode: 'ContactChip', onlinePin: true });
    const result = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: ['ContactChip'],
      offlineAllowed: false,
    });
    expect(result.outcome).toBe('ok');
    if (result.outcome !== 'ok') return;
    expect(result.entryMode).toBe('ContactChip');
    expect(result.pin).toMatchObject({ ksn: expect.any(String), format: 'ISO0' });
    expect(rig.events.of('reader.progress').map((p) => p.step)).toEqual([
      'cardPresented',
      'pinRequested',
      'pinEntered',
      'removeCard',
    ]);
  });

  it('passes on an offline approval by the reader', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0, result: 'offlineApproved', entryMode: 'ContactChip' });
    const result = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: ['ContactChip'],
      offlineAllowed: true,
    });
    expect(result).toMatchObject({ outcome: 'ok', offlineApproved: true });
  });

  it('the simulated chip approves offline when the terminal allows it and no result is scripted; never when not allowed', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0 });
    const allowed = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: true,
    });
    expect(allowed).toMatchObject({ outcome: 'ok', offlineApproved: true });
    rig.sim.reader.nextCard({ delayMs: 0 });
    const refused = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(refused.outcome === 'ok' && refused.offlineApproved).toBeFalsy();
    rig.sim.reader.nextCard({ delayMs: 0, result: 'approve' });
    const online = await rig.peripherals.reader.readCard({
      amount: 500,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: true,
    });
    expect(online.outcome === 'ok' && online.offlineApproved).toBeFalsy();
  });

  it.each([
    ['decline', 'declined', 'declined by the card'],
    ['timeout', 'timeout', 'no card presented'],
    ['removedMidPin', 'error', 'card removed during PIN entry'],
    ['error', 'error', 'card read error'],
  ] as const)('reports a reader-side %s as outcome %s without card data', async (scenario, outcome, reason) => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 0, pinDelayMs: 0, result: scenario });
    const result = await rig.peripherals.reader.readCard({
      amount: 100,
      currency: 'EUR',
      entryModes: ['ContactChip'],
      offlineAllowed: false,
    });
    expect(result).toEqual({ outcome, reason });
  });

  it('cancels on the reader and resolves with outcome timeout when no result comes in time', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ result: 'noAnswer' });
    const result = await rig.peripherals.reader.readCard({
      amount: 100,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
      timeoutMs: 200,
    });
    expect(result.outcome).toBe('timeout');
    const start = rig.sim.reader.receivedOfType('startPayment')[0];
    expect(rig.sim.reader.receivedOfType('cancel')).toEqual([{ type: 'cancel', id: start?.id }]);
    expect(rig.sim.reader.busy).toBe(false);
  });

  it('still resolves with outcome timeout when the reader does not confirm the cancel', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ result: 'noAnswer' });
    const pending = rig.peripherals.reader.readCard({
      amount: 100,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
      timeoutMs: 200,
    });
    const simReader = rig.sim.reader;
    await untilTrue(
      'the reader asked to start the payment',
      () => simReader.receivedOfType('startPayment').length > 0,
      { everyMs: 5 },
    );
    // The reader hangs: nothing is acknowledged or answered any more.
    rig.sim.reader.close();
    expect((await pending).outcome).toBe('timeout');
  });

  it('rejects showResult with LINK_NO_ACK when the reader does not acknowledge it', async () => {
    rig = await simRig();
    rig.sim.reader.close();
    await expect(rig.peripherals.reader.showResult(false, 'DECLINED')).rejects.toMatchObject({ code: 'LINK_NO_ACK' });
  });

  it('cancels on the reader when the caller aborts, and resolves with outcome cancelled', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 60_000 });
    const abort = new AbortController();
    const pending = rig.peripherals.reader.readCard({
      amount: 100,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
      signal: abort.signal,
    });
    const simReader = rig.sim.reader;
    await untilTrue(
      'the reader asked to start the payment',
      () => simReader.receivedOfType('startPayment').length > 0,
      { everyMs: 5 },
    );
    abort.abort();
    expect(await pending).toEqual({ outcome: 'cancelled', reason: 'cancelled at the counter' });
    expect(rig.sim.reader.receivedOfType('cancel')).toHaveLength(1);
    expect(rig.sim.reader.busy).toBe(false);
  });

  it('does not ask the reader when the signal is already aborted', async () => {
    rig = await simRig();
    const abort = new AbortController();
    abort.abort();
    const result = await rig.peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
      signal: abort.signal,
    });
    expect(result.outcome).toBe('cancelled');
    expect(rig.sim.reader.receivedOfType('startPayment')).toHaveLength(0);
  });

  it('runs one request at a time: a second readCard waits for the first', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 50 });
    rig.sim.reader.nextCard({ delayMs: 0, result: 'decline' });
    const req = { amount: 1, currency: 'EUR', entryModes: ['ContactlessChip' as const], offlineAllowed: false };
    const [a, b] = await Promise.all([rig.peripherals.reader.readCard(req), rig.peripherals.reader.readCard(req)]);
    expect(a.outcome).toBe('ok');
    expect(b.outcome).toBe('declined');
    // The reader was never asked while busy.
    expect(rig.sim.reader.receivedOfType('error')).toHaveLength(0);
  });

  it('shows the result on the reader screen', async () => {
    rig = await simRig();
    await rig.peripherals.reader.showResult(true, 'APPROVED');
    expect(rig.sim.reader.receivedOfType('showResult')).toMatchObject([{ approved: true, text: 'APPROVED' }]);
    expect(rig.sim.reader.lastResult).toEqual({ approved: true, text: 'APPROVED' });
  });

  it('pings the reader with a hello round trip', async () => {
    rig = await simRig();
    const ping = await rig.peripherals.reader.ping();
    expect(ping.info.model).toBe('SIM-READER-1');
    expect(ping.rttMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses a card result with an unmasked card number and never shows it', async () => {
    const { log, sink } = testLogger('trace');
    rig = await simRig({ log });
    rig.sim.reader.nextCard({ delayMs: 0, maskedPan: '4761739001010010' });
    const result = await rig.peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(result.outcome).toBe('error');
    expect(JSON.stringify(result)).not.toContain('4761739001010010');
    expect(sink.text()).not.toContain('4761739001010010');
  });

  it('never writes card data or PIN blocks to the log, not even at trace level', async () => {
    const { log, sink } = testLogger('trace');
    rig = await simRig({ log });
    rig.sim.reader.nextCard({ delayMs: 0, pinDelayMs: 0, entryMode: 'ContactChip', onlinePin: true });
    const result = await rig.peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactChip'],
      offlineAllowed: false,
    });
    expect(result.outcome).toBe('ok');
    if (result.outcome !== 'ok' || !result.pin) throw new Error('expected card and PIN');
    const text = sink.text();
    // Frames were traced (so the check below means something) ...
    expect(text).toContain('"hex"');
    for (const secret of [result.card.encryptedData, result.pin.pinblock]) {
      expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain(Buffer.from(secret).toString('hex'));
    }
    // ... and no frame carrying the card result was dumped.
    expect(text).not.toContain(Buffer.from('"type":"cardResult"').toString('hex'));
  });

  it('answers readCard with outcome error when the reader is not connected', async () => {
    rig = await simRig({ config: devicesConfig({ reader: { enabled: false } }) });
    const result = await rig.peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(result).toEqual({ outcome: 'error', reason: 'the card reader is disabled' });
    await expect(rig.peripherals.reader.showResult(true, 'x')).rejects.toMatchObject({ code: 'DEVICE_DISCONNECTED' });
  });

  it('turns an error answer into DEVICE_ERROR with the device code (unknown type)', async () => {
    rig = await simRig();
    const session = rig.peripherals.reader.supervisor.session;
    if (!session) throw new Error('not connected');
    await expect(session.request({ type: 'selfTest' }, ['done'])).rejects.toMatchObject({
      code: 'DEVICE_ERROR',
      details: { deviceCode: 'unknown_type' },
    });
  });
});
