import { Transform, type TransformCallback } from 'node:stream';
import { systemClock, type Clock, type TimerHandle } from '../../core/index.js';
import { CR, LF, MAX_LINE, STALE_LINE_MS } from './constants.js';

export type LineUnit =
  { kind: 'line'; text: string } | { kind: 'discarded'; bytes: number; reason: 'overlong' | 'invalid' | 'stale' };

export interface LineParserOptions {
  clock?: Clock;
  maxLine?: number;
  staleMs?: number;
}

/**
 * Bytes in, scanned lines out: CR, LF or CR LF end a line (empty lines are skipped); a
 * line over 512 bytes is discarded whole, up to its terminator; a line with bytes outside
 * printable ASCII is discarded; surrounding spaces are trimmed. Never throws.
 */
export class LineParser extends Transform {
  private readonly line: Buffer;
  private len = 0;
  /** Bytes of an over-long line seen so far; > 0 while skipping to its terminator. */
  private overlong = 0;
  private timer: TimerHandle | undefined;
  private readonly clock: Clock;
  private readonly maxLine: number;
  private readonly staleMs: number;

  constructor(opts: LineParserOptions = {}) {
    super({ readableObjectMode: true });
    this.clock = opts.clock ?? systemClock();
    this.maxLine = opts.maxLine ?? MAX_LINE;
    this.staleMs = opts.staleMs ?? STALE_LINE_MS;
    this.line = Buffer.allocUnsafe(this.maxLine);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    for (const b of chunk) {
      if (b === CR || b === LF) {
        this.endLine();
      } else if (this.overlong > 0) {
        this.overlong++;
      } else if (this.len >= this.maxLine) {
        this.overlong = this.len + 1;
        this.len = 0;
      } else {
        this.line[this.len++] = b;
      }
    }
    this.armTimer();
    cb();
  }

  override _flush(cb: TransformCallback): void {
    this.clearTimer();
    this.dropPartial();
    cb();
  }

  override _destroy(err: Error | null, cb: (error: Error | null) => void): void {
    this.clearTimer();
    cb(err);
  }

  private endLine(): void {
    if (this.overlong > 0) {
      this.push({ kind: 'discarded', bytes: this.overlong, reason: 'overlong' } satisfies LineUnit);
      this.overlong = 0;
      return;
    }
    if (this.len === 0) return;
    const bytes = this.line.subarray(0, this.len);
    this.len = 0;
    for (const b of bytes) {
      if (b < 0x20 || b > 0x7e) {
        this.push({ kind: 'discarded', bytes: bytes.length, reason: 'invalid' } satisfies LineUnit);
        return;
      }
    }
    const text = bytes.toString('latin1').trim();
    if (text !== '') this.push({ kind: 'line', text } satisfies LineUnit);
  }

  private dropPartial(): void {
    const bytes = this.overlong > 0 ? this.overlong : this.len;
    if (bytes === 0) return;
    this.overlong = 0;
    this.len = 0;
    this.push({ kind: 'discarded', bytes, reason: 'stale' } satisfies LineUnit);
  }

  private armTimer(): void {
    this.clearTimer();
    if (this.len === 0 && this.overlong === 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.dropPartial();
    }, this.staleMs);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
