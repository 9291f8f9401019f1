import type { BackoffOptions, Logger, Clock } from '../core/index.js';
import type { SerialPortConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { LinkOptions } from './link/link.js';
import type { SerialBinding } from './serial-port.js';

/** What every driver is built from (src/devices/peripherals.ts passes it in). */
export interface DriverOptions {
  config: SerialPortConfig;
  binding: SerialBinding;
  bus: EventBus;
  log: Logger;
  clock?: Clock;
  backoff?: BackoffOptions;
  /** Keep reopening after a failure (default true). */
  reconnect?: boolean;
  /** Overrides of the link's spec timings, for tests only. */
  link?: Partial<Pick<LinkOptions, 'ackTimeoutMs' | 'maxRetransmissions' | 'interByteTimeoutMs'>>;
}

/** Round trip of a `hello`, for `devices ping`. */
export interface PingResult<I> {
  info: I;
  rttMs: number;
}
