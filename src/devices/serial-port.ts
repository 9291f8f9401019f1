import { createRequire } from 'node:module';
import type { SerialPort } from 'serialport';
import { withHangupAsDisconnect } from './hangup-read.js';
import { withUdevFallback } from './port-list.js';

export type { SerialBinding, SerialPortInfo } from './port-types.js';
import type { SerialBinding } from './port-types.js';

export type OpenPort = SerialPort;

/**
 * serialport's stream class and the operating system's binding, loaded from the two
 * packages serialport's `SerialPort` is made of (required from serialport's own place, so
 * they are the copies it uses) instead of through its index: the index also loads ten
 * parsers, a mock binding and its mock port, none of which the agent uses (1.5 MiB at
 * idle: docs/performance.md, "Memory"). `SerialPort` is this stream class with the
 * detected binding as its default, and the agent always passes its binding.
 */
interface SerialPortParts {
  Stream: typeof SerialPort;
  binding: unknown;
}

let parts: SerialPortParts | undefined;

function serialPort(): SerialPortParts {
  if (parts === undefined) {
    const load = createRequire(createRequire(import.meta.url).resolve('serialport'));
    const { SerialPortStream } = load('@serialport/stream') as { SerialPortStream: typeof SerialPort };
    const { autoDetect } = load('@serialport/bindings-cpp') as { autoDetect: () => unknown };
    parts = { Stream: SerialPortStream, binding: autoDetect() };
  }
  return parts;
}

/**
 * The operating system's serial ports; a hung-up tty closes its port as a disconnect
 * instead of leaving a read spinning (see hangup-read.ts); without udev the ports are
 * listed from sysfs (see port-list.ts).
 */
export function systemBinding(): SerialBinding {
  const binding = serialPort().binding as SerialBinding;
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
  // SerialPort's constructor type omits `binding`, but the stream takes it: the same class
  // serves both bindings.
  const options = {
    path: opts.path,
    baudRate: opts.baudRate,
    dataBits: 8,
    stopBits: 1,
    parity: 'none',
    rtscts: false,
    lock: true,
    autoOpen: false,
    binding: opts.binding,
  };
  const port = new (serialPort().Stream)(options as unknown as ConstructorParameters<typeof SerialPort>[0]);
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
