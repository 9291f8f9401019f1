import { randomUUID } from 'node:crypto';
import { configSchema, type Config } from '../../src/config/schema.js';
import type { Logger } from '../../src/core/logger.js';
import { silentLogger } from '../../src/core/logger.js';
import { createPeripherals, type PeripheralSet } from '../../src/devices/peripherals.js';
import { EventBus } from '../../src/events/bus.js';
import type { AgentEvent, AgentEventType } from '../../src/events/types.js';
import { startSimulatedPeripherals, type SimulatedPeripherals } from '../../src/sim/devices/start.js';

export type DevicesConfig = Config['devices'];

/** A devices config with paths unique to this test (MockBinding's ports are per process). */
export function devicesConfig(overrides: Record<string, unknown> = {}): DevicesConfig {
  const id = randomUUID().slice(0, 8);
  const base = {
    simulate: true,
    reader: { path: `/dev/sim-reader-${id}`, requestTimeoutMs: 500 },
    display: { path: `/dev/sim-display-${id}`, requestTimeoutMs: 500 },
    scanner: { path: `/dev/sim-scanner-${id}` },
    cardTimeoutMs: 5_000,
    reconnectBaseMs: 10,
    reconnectCapMs: 50,
  };
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    const b = (base as Record<string, unknown>)[k];
    merged[k] = typeof v === 'object' && v !== null && typeof b === 'object' && b !== null ? { ...b, ...v } : v;
  }
  return configSchema.parse({ devices: merged }).devices;
}

/** Records every bus event; `waitFor` resolves on the first (past or future) match. */
export class EventLog {
  readonly events: AgentEvent[] = [];
  private readonly waiters: Array<{ test: (e: AgentEvent) => boolean; resolve: (e: AgentEvent) => void }> = [];

  constructor(bus: EventBus) {
    bus.subscribe((e) => {
      this.events.push(e);
      for (const w of [...this.waiters]) {
        if (w.test(e)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    });
  }

  of<K extends AgentEventType>(type: K): Array<AgentEvent<K>['data']> {
    return this.events.filter((e) => e.type === type).map((e) => e.data as AgentEvent<K>['data']);
  }

  /** Waits for a future event (after `after` events were seen). */
  waitFor<K extends AgentEventType>(
    type: K,
    test: (d: AgentEvent<K>['data']) => boolean = () => true,
    after = this.events.length,
  ): Promise<AgentEvent<K>['data']> {
    const match = (e: AgentEvent): boolean => e.type === type && test(e.data as AgentEvent<K>['data']);
    const seen = this.events.slice(after).find(match);
    if (seen) return Promise.resolve(seen.data as AgentEvent<K>['data']);
    return new Promise((resolve) =>
      this.waiters.push({ test: match, resolve: (e) => resolve(e.data as AgentEvent<K>['data']) }),
    );
  }
}

export interface SimRig {
  config: DevicesConfig;
  sim: SimulatedPeripherals;
  peripherals: PeripheralSet;
  bus: EventBus;
  events: EventLog;
  stop(): Promise<void>;
}

/** Simulated peripherals on MockBinding ports and the agent's drivers on the same ports, started. */
export async function simRig(opts: { config?: DevicesConfig; log?: Logger; start?: boolean } = {}): Promise<SimRig> {
  const config = opts.config ?? devicesConfig();
  const log = opts.log ?? silentLogger();
  const bus = new EventBus();
  const events = new EventLog(bus);
  const sim = await startSimulatedPeripherals({ config, log });
  const peripherals = createPeripherals({ config, bus, log, binding: sim.binding, link: { ackTimeoutMs: 50 } });
  if (opts.start !== false) await peripherals.start();
  return {
    config,
    sim,
    peripherals,
    bus,
    events,
    async stop() {
      await peripherals.stop();
      await sim.stop();
    },
  };
}
