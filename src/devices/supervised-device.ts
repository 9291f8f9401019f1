import type { Duplex } from 'node:stream';
import { systemClock, type Logger, type Clock } from '../core/index.js';
import type { EventBus, DeviceName } from '../events/index.js';
import type { DeviceInfo } from './api.js';
import type { DriverOptions } from './framed-device.js';
import { PortSupervisor, type ConnectAttempt, type DeviceStatusEntry, type PortSession } from './port-supervisor.js';

/**
 * What every driver shares: a port supervisor that opens, hands shakes and reopens its
 * port, and the lifecycle and status read from it. A driver adds its session type and
 * handshake, and its own requests.
 */
export abstract class SupervisedDevice<S extends PortSession> {
  readonly supervisor: PortSupervisor<S>;
  protected readonly log: Logger;
  protected readonly bus: EventBus;
  protected readonly clock: Clock;

  protected constructor(opts: DriverOptions, identity: { device: DeviceName; label: string; component: string }) {
    this.log = opts.log.child({ component: identity.component });
    this.bus = opts.bus;
    this.clock = opts.clock ?? systemClock();
    this.supervisor = new PortSupervisor<S>({
      device: identity.device,
      label: identity.label,
      config: opts.config,
      binding: opts.binding,
      bus: opts.bus,
      log: opts.log,
      clock: this.clock,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      ...(opts.reconnect !== undefined ? { reconnect: opts.reconnect } : {}),
      // Called only once the port opens, after the subclass is fully constructed.
      sessions: { create: (stream) => this.createSession(stream), handshake: (session) => this.handshake(session) },
    });
  }

  protected abstract createSession(stream: Duplex): S;

  /** The exchange run on every (re)connect; rejects when the device is not what we expect. */
  protected abstract handshake(session: S): Promise<DeviceInfo | undefined>;

  start(): Promise<ConnectAttempt> {
    return this.supervisor.start();
  }

  stop(): Promise<void> {
    return this.supervisor.stop();
  }

  status(): DeviceStatusEntry {
    return this.supervisor.status();
  }

  get connected(): boolean {
    return this.supervisor.connected;
  }

  get info(): DeviceInfo | undefined {
    return this.supervisor.info;
  }
}
