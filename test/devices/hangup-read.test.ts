import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withHangupAsDisconnect } from '../../src/devices/hangup-read.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A stand-in for a bindings-cpp Unix port on a regular file: a read at its end returns 0
 * bytes, as a hung-up tty does (the socat test shows it on a real pseudo-terminal).
 */
function fakePort(content: string) {
  const dir = tempDir('terminal-agent-hangup-');
  const file = join(dir.dir, 'tty');
  writeFileSync(file, content);
  const fd = openSync(file, 'r');
  const port = {
    isOpen: true,
    fd: fd as number | null,
    originalCalls: 0,
    poller: { once: () => undefined },
    async read(buffer: Buffer, _offset: number, _length: number): Promise<{ bytesRead: number; buffer: Buffer }> {
      port.originalCalls++;
      return { bytesRead: 0, buffer };
    },
  };
  return { port, cleanup: () => (closeSync(fd), dir.cleanup()) };
}

describe('serial reads on a hung-up tty', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('passes data through, then fails with EIO at end of file instead of reading again for ever', async () => {
    const { port, cleanup } = fakePort('ab');
    cleanups.push(cleanup);
    const wrapped = withHangupAsDisconnect(port);
    const buffer = Buffer.alloc(8);
    const first = await wrapped.read(buffer, 0, 8);
    expect(buffer.subarray(0, first.bytesRead).toString()).toBe('ab');
    await expect(wrapped.read(buffer, 0, 8)).rejects.toMatchObject({ code: 'EIO' });
    expect(port.originalCalls).toBe(0);
  });

  it('leaves a closed port and bad arguments to the binding', async () => {
    const { port, cleanup } = fakePort('');
    cleanups.push(cleanup);
    const wrapped = withHangupAsDisconnect(port);
    port.isOpen = false;
    await wrapped.read(Buffer.alloc(4), 0, 4);
    port.isOpen = true;
    await wrapped.read(Buffer.alloc(4), 2, 4);
    expect(port.originalCalls).toBe(2);
  });

  it('returns ports of other bindings unchanged', () => {
    const mock = { read: async () => ({ bytesRead: 0, buffer: Buffer.alloc(0) }) };
    expect(withHangupAsDisconnect(mock)).toBe(mock);
    expect(withHangupAsDisconnect(mock).read).toBe(mock.read);
  });
});
