import type { Clock, Logger } from '../../core/index.js';
import type { Config, SerialPortConfig } from '../../config/index.js';
import type { SerialBinding } from '../../devices/index.js';
import { SimulatedDisplay } from './simulated-display.js';
import { SimulatedPorts } from './simulated-ports.js';
import { SimulatedReader, type SimulatedCard } from './simulated-reader.js';
import { SimulatedScanner } from './simulated-scanner.js';

export interface SimulatedPeripherals {
  reader: SimulatedReader;
  display: SimulatedDisplay;
  scanner: SimulatedScanner;
  /** Pass to createPeripherals({ binding }) so the agent opens these ports. */
  binding: SerialBinding;
  ports: SimulatedPorts;
  stop(): Promise<void>;
}

export interface StartSimulatedOptions {
  config: Config['devices'];
  log: Logger;
  clock?: Clock;
  defaultCard?: SimulatedCard;
}

/** Vendor/product ids of the simulated USB devices when the configuration has none. */
const simUsb = {
  reader: { vendorId: '1d50', productId: '6101' },
  display: { vendorId: '1d50', productId: '6102' },
  scanner: { vendorId: '1d50', productId: '6103' },
};

/**
 * Demo mode: creates MockBinding ports at the three configured paths (or with the
 * configured USB ids) and attaches a simulated reader, display and scanner to them.
 */
export async function startSimulatedPeripherals(opts: StartSimulatedOptions): Promise<SimulatedPeripherals> {
  const log = opts.log.child({ module: 'sim-devices' });
  const ports = new SimulatedPorts();
  const create = (name: keyof typeof simUsb, cfg: SerialPortConfig) =>
    ports.create(cfg.path, {
      vendorId: cfg.usb?.vendorId ?? simUsb[name].vendorId,
      productId: cfg.usb?.productId ?? simUsb[name].productId,
      serialNumber: cfg.usb?.serialNumber ?? `SIM-${name.toUpperCase()}-1`,
    });
  const withClock = opts.clock ? { clock: opts.clock } : {};
  const reader = new SimulatedReader(create('reader', opts.config.reader), {
    log: log.child({ device: 'reader' }),
    ...withClock,
    ...(opts.defaultCard ? { defaultCard: opts.defaultCard } : {}),
  });
  const display = new SimulatedDisplay(create('display', opts.config.display), {
    log: log.child({ device: 'display' }),
    ...withClock,
  });
  const scanner = new SimulatedScanner(create('scanner', opts.config.scanner));
  log.info(
    { reader: opts.config.reader.path, display: opts.config.display.path, scanner: opts.config.scanner.path },
    'simulated peripherals ready',
  );
  return {
    reader,
    display,
    scanner,
    binding: ports.binding,
    ports,
    async stop() {
      reader.close();
      display.close();
    },
  };
}
