import type { Writable } from 'node:stream';

/** A serial barcode scanner (docs/serial-protocol.md, "Barcode scanner"): writes each code and a terminator. */
export class SimulatedScanner {
  constructor(private readonly stream: Writable) {}

  scan(text: string, terminator: '\r' | '\n' | '\r\n' = '\r\n'): void {
    this.raw(Buffer.from(text + terminator, 'latin1'));
  }

  /** Arbitrary bytes, e.g. a line without terminator or line noise. */
  raw(bytes: Buffer): void {
    if (!this.stream.destroyed) this.stream.write(bytes);
  }
}
