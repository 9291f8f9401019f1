import { SerialPort } from 'serialport';
import { withHangupAsDisconnect } from './hangup-read.js';
import { withUdevFallback } from './port-list.js';

export type { SerialBinding, SerialPortInfo } from './port-types.js';
import type { SerialBinding } from './port-types.js';

export type OpenPort = SerialPort;

/**
 * The operating system's serial ports; a hung-up tty closes its port as a disconnect
 * instead of leaving a read spinning (see hangup-read.ts); without udev the ports are
 * listed from sysfs (see port-list.ts).
 */
export function systemBinding(): SerialBinding {
  const binding = SerialPort.binding as unknown as SerialBinding;
  return withUdevFallback({
    list: () => binding.list(),
    open: async (options) => withHangupAsDisconnect(await binding.open(options)),
  });
}

/**
 * Opens `path` on `binding` at 8N1 without flow control (docs/serial-protocol.md,
 * "Ports and line settings"), locked
 * against other processes. Rejects with the binding's own error (see port-errors.ts).
 */
export function openSerialPort(opts: { path: string; baudRate: number; binding: SerialBinding }): Promise<OpenPort> {
  // SerialPort's constructor type omits `binding`, but the class passes it through to the
  // stream and prefers it over the detected one: the same class serves both bindings.
  const options = { path: opts.path, baudRate: opts.baudRate, dataBits: 8, stopBits: 1, parity: 'none', rtscts: false, lock: true, autoOpen: false, binding: opts.binding };
  const port = new SerialPort(options as unknown as ConstructorParameters<typeof SerialPort>[0]);
  return new Promise<OpenPort>((resolve, reject) => {
    port.open((err) => (err ? reject(err) : resolve(port)));
  });
}

/** Closes a port if it is open; never throws. */
export function closeSerialPort(port: OpenPort): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!port.isOpen) {
      resolve();
      return;
    }
    port.close(() => resolve());
  });
}
