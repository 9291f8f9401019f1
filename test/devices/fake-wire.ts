import { Duplex } from 'node:stream';

/** A fake port: the test reads what the code under test wrote, and feeds bytes in. */
export class FakePort extends Duplex {
  readonly written: Buffer[] = [];
  /** When set, writes are delivered to the peer's readable side (a wire between two ends). */
  peer: FakePort | undefined;
  /** Drops writes instead of delivering them (a cut wire). */
  cut = false;

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.written.push(Buffer.from(chunk));
    if (this.peer && !this.cut) this.peer.push(Buffer.from(chunk));
    cb();
  }

  feed(bytes: Buffer | number[]): void {
    this.push(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));
  }

  takeWritten(): Buffer {
    const all = Buffer.concat(this.written);
    this.written.length = 0;
    return all;
  }
}

/** Two ends of an in-memory wire: what one end writes the other reads. */
export function wirePair(): [FakePort, FakePort] {
  const a = new FakePort();
  const b = new FakePort();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

/** Lets pending stream callbacks and promise continuations run. */
export async function flush(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
