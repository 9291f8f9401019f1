import type { Writable } from 'node:stream';
import { encodeAck, encodeFrame, encodeNak, type LinkPayload } from './frame.js';

/**
 * Writes frames and acknowledgements to the port. Each goes out in one write() call, so
 * an ACK never lands inside a frame; a write on a closed port is reported, never thrown.
 */
export class FrameWriter {
  constructor(
    private readonly out: Writable,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Encodes (LINK_OVERSIZE is thrown here, before anything is written) and sends a frame. */
  frame(seq: number, payload: LinkPayload | Buffer): Buffer {
    const bytes = encodeFrame(seq, payload);
    this.raw(bytes);
    return bytes;
  }

  ack(seq: number): void {
    this.raw(encodeAck(seq));
  }

  nak(seq: number): void {
    this.raw(encodeNak(seq));
  }

  raw(bytes: Buffer): void {
    if (this.out.destroyed || this.out.writableEnded) {
      this.onError(new Error('port is closed'));
      return;
    }
    try {
      this.out.write(bytes, (err) => {
        if (err) this.onError(err);
      });
    } catch (err) {
      this.onError(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
