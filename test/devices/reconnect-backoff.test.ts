import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { createPeripherals, type PeripheralSet } from '../../src/devices/peripherals.js';
import type { SerialBinding } from '../../src/devices/serial-port.js';
import { EventBus } from '../../src/events/bus.js';
import { SimulatedPorts } from '../../src/sim/devices/simulated-ports.js';
import { SimulatedReader } from '../../src/sim/devices/simulated-reader.js';
import { devicesConfig, EventLog } from './sim-rig.js';
import { ManualClock } from './manual-clock.js';
import { flush } from './fake-wire.js';

let set: PeripheralSet | undefined;
afterEach(async () => {
  await set?.stop();
  set = undefined;
});

describe('reconnect backoff (injected clock)', () => {
  it('reopens after full-jitter delays that grow per failed attempt up to the cap', async () => {
    const clock = new ManualClock();
    const ports = new SimulatedPorts();
    const config = devicesConfig({ display: { enabled: false }, scanner: { enabled: false } });
    const opens: number[] = [];
    const binding: SerialBinding = {
      list: () => ports.binding.list(),
      open: (o) => {
        opens.push(clock.mono());
        return ports.binding.open(o);
      },
    };
    const bus = new EventBus();
    const events = new EventLog(bus);
    // random() = 0.5: the delay is half the ceiling, min(cap, base * 2^attempt).
    set = createPeripherals({
      config,
      bus,
      log: silentLogger(),
      binding,
      clock,
      backoff: { baseMs: 100, capMs: 1_000, random: () => 0.5 },
    });
    await set.reader.start();
    expect(opens).toEqual([0]);
    for (const expectedGap of [100, 200, 400, 500, 500]) {
      const before = opens.length;
      clock.advance(expectedGap - 1);
      await flush();
      expect(opens.length).toBe(before);
      clock.advance(1);
      await flush();
      expect(opens.length).toBe(before + 1);
    }
    expect(opens).toEqual([0, 100, 300, 700, 1200, 1700]);
    expect(events.of('device.status')).toEqual([
      {
        device: 'reader',
        state: 'reconnecting',
        reason: 'port_missing',
        message: expect.stringContaining('does not exist'),
      },
    ]);
    // The reader appears: the next attempt connects and the attempt count starts over.
    const sim = new SimulatedReader(ports.create(config.reader.path), { log: silentLogger(), clock });
    clock.advance(500);
    for (let i = 0; i < 20 && !set.reader.connected; i++) await flush();
    expect(set.reader.connected).toBe(true);
    expect(set.status().reader).toMatchObject({ state: 'connected', reason: 'opened', attempts: 0 });
    sim.close();
  });
});
