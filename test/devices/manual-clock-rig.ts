import { silentLogger } from '../../src/core/logger.js';
import { createPeripherals, type PeripheralSet } from '../../src/devices/peripherals.js';
import { EventBus } from '../../src/events/bus.js';
import { startSimulatedPeripherals, type SimulatedPeripherals } from '../../src/sim/devices/start.js';
import { ManualClock } from './manual-clock.js';
import { devicesConfig, EventLog } from './sim-rig.js';

const flushIo = async (): Promise<void> => {
  for (let i = 0; i < 6; i++) await new Promise((r) => setImmediate(r));
};

/** Advances the clock in 50 ms steps, letting the port I/O run between them, until `p` settles or `limitMs` passed. */
export async function runUntilSettled<T>(
  clock: ManualClock,
  p: Promise<T>,
  limitMs: number,
): Promise<{ value: T | undefined; elapsedMs: number }> {
  let settled = false;
  let value: T | undefined;
  void p.then((v) => {
    settled = true;
    value = v;
  });
  const t0 = clock.mono();
  while (!settled && clock.mono() - t0 < limitMs) {
    await flushIo();
    clock.advance(50);
  }
  await flushIo();
  return { value, elapsedMs: clock.mono() - t0 };
}

export interface ManualClockRig {
  clock: ManualClock;
  sim: SimulatedPeripherals;
  peripherals: PeripheralSet;
  events: EventLog;
  stop(): Promise<void>;
}

/** Simulated peripherals and the agent's drivers over MockBinding, both on one ManualClock, with the shipped timings; started. */
export async function manualClockRig(): Promise<ManualClockRig> {
  const clock = new ManualClock();
  const log = silentLogger();
  // The shipped timings: 90 s card timeout, 5 s requests, 500 ms ACK timeout.
  const config = devicesConfig({ reader: { requestTimeoutMs: 5000 }, cardTimeoutMs: 90_000 });
  const sim = await startSimulatedPeripherals({ config, log, clock });
  const bus = new EventBus();
  const events = new EventLog(bus);
  const peripherals = createPeripherals({ config, bus, log, binding: sim.binding, clock });
  const started = peripherals.start();
  await runUntilSettled(clock, started, 5000);
  if (!peripherals.reader.connected) throw new Error('the simulated reader did not connect');
  const stop = async (): Promise<void> => {
    await peripherals.stop();
    await sim.stop();
  };
  return { clock, sim, peripherals, events, stop };
}
