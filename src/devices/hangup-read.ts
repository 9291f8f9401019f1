import { read } from 'node:fs';
import { promisify } from 'node:util';

const readAsync = promisify(read);

/** What a Linux or macOS port of @serialport/bindings-cpp exposes (LinuxPortBinding, DarwinPortBinding). */
interface UnixPortBinding {
  readonly isOpen: boolean;
  fd: number | null;
  poller: { once(event: 'readable', callback: (err: Error | null) => void): unknown };
  read(buffer: Buffer, offset: number, length: number): Promise<{ bytesRead: number; buffer: Buffer }>;
}

function isUnixPortBinding(port: unknown): port is UnixPortBinding {
  return (
    typeof port === 'object' &&
    port !== null &&
    'poller' in port &&
    'fd' in port &&
    typeof (port as { read?: unknown }).read === 'function'
  );
}

/** Marked `canceled`, so the serialport stream does not take it for a disconnect (as bindings-cpp does). */
function notOpen(): Error {
  return Object.assign(new Error('Port is not open'), { canceled: true });
}

/**
 * bindings-cpp's read on Linux and macOS takes a read of 0 bytes for "nothing yet" and
 * reads again at once (serialport/bindings-cpp issue #162). A tty that was hung up (a USB
 * adapter unplugged, the other end of a pseudo-terminal closed) answers every read with 0
 * bytes: a read that starts after the hangup spins on the CPU for ever and the port never
 * closes, so the supervisor never sees the device go. Only a read already parked in the
 * poller when the hangup comes sees it, as an error. This read is the same loop, except
 * that 0 bytes (end of file; a non-blocking tty with no data answers EAGAIN instead) is an
 * error, which the serialport stream turns into a disconnect like any other read error.
 * Ports of other bindings (Windows, MockBinding) are returned unchanged.
 */
export function withHangupAsDisconnect<P>(port: P): P {
  if (!isUnixPortBinding(port)) return port;
  const unix: UnixPortBinding = port;
  const readUntilHangup = async (
    buffer: Buffer,
    offset: number,
    length: number,
  ): Promise<{ bytesRead: number; buffer: Buffer }> => {
    for (;;) {
      if (!unix.isOpen || unix.fd === null) throw notOpen();
      try {
        const { bytesRead } = await readAsync(unix.fd, buffer, offset, length, null);
        if (bytesRead === 0)
          throw Object.assign(new Error('the serial port was hung up (read reached end of file)'), { code: 'EIO' });
        return { bytesRead, buffer };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK' && code !== 'EINTR') throw err;
        if (!unix.isOpen) throw notOpen();
        await new Promise<void>((resolve, reject) => unix.poller.once('readable', (e) => (e ? reject(e) : resolve())));
      }
    }
  };
  const original = unix.read.bind(unix);
  unix.read = async (buffer, offset, length) => {
    // The original validates its arguments and the open state; only the read loop differs.
    const valid =
      Buffer.isBuffer(buffer) &&
      Number.isInteger(offset) &&
      Number.isInteger(length) &&
      buffer.length >= offset + length;
    if (!valid || !unix.isOpen) return original(buffer, offset, length);
    return readUntilHangup(buffer, offset, length);
  };
  return port;
}
