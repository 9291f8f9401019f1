import type { BackoffOptions, Logger, Clock } from '../core/index.js';
import type { Config } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { Peripherals } from './api.js';
import { SerialBarcodeScanner } from './barcode-scanner.js';
import { SerialCardReader } from './card-reader.js';
import { SerialCustomerDisplay } from './customer-display.js';
import type { DriverOptions } from './framed-device.js';
import type { DeviceStatusEntry } from './port-supervisor.js';
import { systemBinding, type SerialBinding } from './serial-port.js';

export interface DeviceStatusReport {
  reader: DeviceStatusEntry & { link?: Record<string, number> };
  display: DeviceStatusEntry & { link?: Record<string, number> };
  scanner: DeviceStatusEntry;
}

export interface PeripheralSet extends Peripherals {
  reader: SerialCardReader;
  display: SerialCustomerDisplay;
  scanner: SerialBarcodeScanner;
  /** Opens every enabled port; resolves after each device's first attempt (connected or not). */
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): DeviceStatusReport;
}

export interface CreatePeripheralsOptions {
  config: Config['devices'];
  bus: EventBus;
  log: Logger;
  /** Default: the operating system's serial ports; the demo passes its MockBinding. */
  binding?: SerialBinding;
  clock?: Clock;
  backoff?: BackoffOptions;
  /** Keep reopening lost ports (default true; the CLI opens once). */
  reconnect?: boolean;
  link?: DriverOptions['link'];
}

/** Builds the card reader, customer display and barcode scanner from `config.devices`. */
export function createPeripherals(opts: CreatePeripheralsOptions): PeripheralSet {
  const log = opts.log;
  const binding = opts.binding ?? systemBinding();
  const base = (config: DriverOptions['config']): DriverOptions => ({
    config,
    binding,
    bus: opts.bus,
    log,
    backoff: opts.backoff ?? { baseMs: opts.config.reconnectBaseMs, capMs: opts.config.reconnectCapMs },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.reconnect !== undefined ? { reconnect: opts.reconnect } : {}),
    ...(opts.link ? { link: opts.link } : {}),
  });
  const reader = new SerialCardReader({ ...base(opts.config.reader), cardTimeoutMs: opts.config.cardTimeoutMs });
  const display = new SerialCustomerDisplay(base(opts.config.display));
  const scanner = new SerialBarcodeScanner(base(opts.config.scanner));
  return {
    reader,
    display,
    scanner,
    async start() {
      const attempts = await Promise.all([reader.start(), display.start(), scanner.start()]);
      const down = attempts.filter((a) => !a.connected).length;
      log.info({ module: 'devices', connected: attempts.length - down, notConnected: down }, 'peripherals started');
    },
    async stop() {
      await Promise.all([reader.stop(), display.stop(), scanner.stop()]);
    },
    status() {
      const linkOf = (s: SerialCardReader | SerialCustomerDisplay): Record<string, number> | undefined => {
        const session = s.supervisor.session;
        return session ? { ...session.link.counters } : undefined;
      };
      const r = linkOf(reader);
      const d = linkOf(display);
      return {
        reader: { ...reader.status(), ...(r ? { link: r } : {}) },
        display: { ...display.status(), ...(d ? { link: d } : {}) },
        scanner: scanner.status(),
      };
    },
  };
}
