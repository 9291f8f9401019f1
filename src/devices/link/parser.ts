import { Transform, type TransformCallback } from 'node:stream';
import { systemClock, type Clock, type TimerHandle } from '../../core/index.js';
import { ACK, ETX, FRAME_OVERHEAD, HEADER_SIZE, INTER_BYTE_TIMEOUT_MS, MAX_PAYLOAD, NAK, STX } from './constants.js';
import { crc16 } from './crc.js';
import type { LinkPayload } from './frame.js';

export type DamageReason = 'crc' | 'etx' | 'oversize' | 'utf8' | 'json';

/** What the parser makes of the bytes it reads (docs/serial-protocol.md, "Frame layout" and "Resync"). */
export type LinkUnit =
  | { kind: 'frame'; seq: number; payload: LinkPayload; raw: Buffer }
  /** A frame whose SEQ is known but which must be NAKed. */
  | { kind: 'damaged'; seq: number; reason: DamageReason }
  | { kind: 'ack'; seq: number }
  | { kind: 'nak'; seq: number }
  /** Bytes dropped: noise outside a frame (docs/serial-protocol.md, "Resync") or a partial frame after silence (docs/serial-protocol.md, "Inter-byte timeout"). */
  | { kind: 'discarded'; bytes: number; reason: 'noise' | 'timeout' };

export interface FrameParserOptions {
  clock?: Clock;
  interByteTimeoutMs?: number;
}

const INITIAL_CAPACITY = 8192;

/**
 * Byte stream in, LinkUnit objects out. Resynchronises on STX after noise or a damaged
 * frame, discards a partial frame after the inter-byte timeout, rejects LEN over 4096,
 * checks ETX, CRC and that the payload is a UTF-8 JSON object. Never throws: every
 * malformed input ends as a `damaged` unit (to be NAKed) or a `discarded` one.
 */
export class FrameParser extends Transform {
  private acc = Buffer.allocUnsafe(INITIAL_CAPACITY);
  private accLen = 0;
  /**
   * Bytes before this index belonged to a frame that failed its checks: while rescanning
   * them only STX counts, so a LEN or CRC byte is never taken for an ACK or NAK.
   */
  private stxOnlyUntil = 0;
  private timer: TimerHandle | undefined;
  private readonly clock: Clock;
  private readonly interByteTimeoutMs: number;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(opts: FrameParserOptions = {}) {
    super({ readableObjectMode: true });
    this.clock = opts.clock ?? systemClock();
    this.interByteTimeoutMs = opts.interByteTimeoutMs ?? INTER_BYTE_TIMEOUT_MS;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.append(chunk);
      this.scan(false);
    } catch {
      // Defensive: a bug here must not take the port down; drop what we have. Unreachable: the
      // scan never throws on any input (test/devices/link-fuzz.test.ts; test/README.md,
      // "Equivalent mutants").
      // Stryker disable next-line all: unreachable, as above
      this.reset();
    }
    this.armTimer();
    cb();
  }

  override _flush(cb: TransformCallback): void {
    // Stryker disable next-line all: the stream destroys itself after flush (autoDestroy), which clears the timer too
    this.clearTimer();
    this.discardPartial();
    cb();
  }

  override _destroy(err: Error | null, cb: (error: Error | null) => void): void {
    this.clearTimer();
    cb(err);
  }

  private append(chunk: Buffer): void {
    const need = this.accLen + chunk.length;
    // Stryker disable next-line EqualityOperator,ConditionalExpression: growing when not needed, or once more, only costs memory
    if (need > this.acc.length) {
      let cap = this.acc.length;
      // Stryker disable next-line EqualityOperator: one doubling more only costs memory
      while (cap < need) cap *= 2;
      const bigger = Buffer.allocUnsafe(cap);
      this.acc.copy(bigger, 0, 0, this.accLen);
      this.acc = bigger;
    }
    chunk.copy(this.acc, this.accLen);
    this.accLen = need;
  }

  /**
   * Consumes complete units from the accumulator. With `final`, an incomplete candidate
   * is not waited for: its first byte is dropped and scanning goes on (timeout, end).
   * Returns how many bytes were dropped.
   */
  private scan(final: boolean): number {
    const acc = this.acc;
    const end = this.accLen;
    let pos = 0;
    let noise = 0;
    let partial = 0;
    while (pos < end) {
      const b = acc[pos] as number;
      const stxOnly = pos < this.stxOnlyUntil;
      if (b === STX) {
        const r = this.tryFrame(pos, end);
        if (r === 'incomplete') {
          if (!final) break;
          partial++;
          this.stxOnlyUntil = end;
          pos++;
          continue;
        }
        if ('rescanFrom' in r) {
          this.stxOnlyUntil = Math.max(this.stxOnlyUntil, r.rescanUntil);
          pos = r.rescanFrom;
        } else {
          pos = r.next;
        }
        continue;
      }
      if (!stxOnly && (b === ACK || b === NAK)) {
        if (pos + 1 >= end) {
          if (!final) break;
          partial++;
          pos++;
          continue;
        }
        this.push({ kind: b === ACK ? 'ack' : 'nak', seq: acc[pos + 1] as number } satisfies LinkUnit);
        pos += 2;
        continue;
      }
      noise++;
      pos++;
    }
    if (noise > 0 && !final) this.push({ kind: 'discarded', bytes: noise, reason: 'noise' } satisfies LinkUnit);
    this.consume(pos);
    return noise + partial;
  }

  /**
   * Checks a candidate frame at `pos` (which holds STX): `next` after a frame whose
   * boundaries held, or `rescanFrom` the byte after a failed STX, its bytes up to
   * `rescanUntil` scanned for STX only.
   */
  private tryFrame(
    pos: number,
    end: number,
  ): 'incomplete' | { next: number } | { rescanFrom: number; rescanUntil: number } {
    const acc = this.acc;
    if (end - pos < HEADER_SIZE) return 'incomplete';
    const len = acc.readUInt16BE(pos + 1);
    const seq = acc[pos + 3] as number;
    if (len > MAX_PAYLOAD) {
      this.push({ kind: 'damaged', seq, reason: 'oversize' } satisfies LinkUnit);
      return { rescanFrom: pos + 1, rescanUntil: pos + HEADER_SIZE };
    }
    const total = len + FRAME_OVERHEAD;
    if (end - pos < total) return 'incomplete';
    const etxAt = pos + HEADER_SIZE + len;
    if (acc[etxAt] !== ETX) {
      this.push({ kind: 'damaged', seq, reason: 'etx' } satisfies LinkUnit);
      return { rescanFrom: pos + 1, rescanUntil: pos + total };
    }
    if (crc16(acc, pos + 1, etxAt + 1) !== acc.readUInt16BE(etxAt + 1)) {
      this.push({ kind: 'damaged', seq, reason: 'crc' } satisfies LinkUnit);
      return { rescanFrom: pos + 1, rescanUntil: pos + total };
    }
    // The CRC held, so the frame boundaries are trusted: a bad payload is skipped whole.
    let text: string;
    try {
      text = this.decoder.decode(acc.subarray(pos + HEADER_SIZE, etxAt));
    } catch {
      this.push({ kind: 'damaged', seq, reason: 'utf8' } satisfies LinkUnit);
      return { next: pos + total };
    }
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined;
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      this.push({ kind: 'damaged', seq, reason: 'json' } satisfies LinkUnit);
      return { next: pos + total };
    }
    const raw = Buffer.from(acc.subarray(pos, pos + total));
    this.push({ kind: 'frame', seq, payload: payload as LinkPayload, raw } satisfies LinkUnit);
    return { next: pos + total };
  }

  private consume(n: number): void {
    // n is at most accLen: with n = 0 or n = accLen the copy moves nothing.
    this.acc.copyWithin(0, n, this.accLen);
    this.accLen -= n;
    // Stryker disable next-line MethodExpression: a range left after consume only covers bytes behind an incomplete STX, which sets its own range before they are scanned
    this.stxOnlyUntil = Math.max(0, this.stxOnlyUntil - n);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: shrinking an empty buffer only saves memory
    if (this.accLen === 0 && this.acc.length > INITIAL_CAPACITY) this.acc = Buffer.allocUnsafe(INITIAL_CAPACITY);
  }

  // Stryker disable next-line BlockStatement: only the unreachable defensive catches call it
  private reset(): void {
    this.accLen = 0;
    this.stxOnlyUntil = 0;
  }

  /** Rule 4: the bytes waiting for more are stale; drop them, keeping any whole frame among them. */
  private discardPartial(): void {
    try {
      const dropped = this.scan(true);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the timer only runs with an incomplete STX or ACK waiting, so a final scan always drops a byte
      if (dropped > 0) this.push({ kind: 'discarded', bytes: dropped, reason: 'timeout' } satisfies LinkUnit);
    } catch {
      // Stryker disable next-line all: unreachable, as above
      this.reset();
    }
  }

  private armTimer(): void {
    this.clearTimer();
    if (this.accLen === 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.discardPartial();
    }, this.interByteTimeoutMs);
  }

  private clearTimer(): void {
    // Stryker disable next-line ConditionalExpression: clearing no timer changes nothing
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
