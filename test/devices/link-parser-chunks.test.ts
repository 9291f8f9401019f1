import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/core/index.js';
import { carriesCardData, encodeAck, encodeFrame, encodeNak } from '../../src/devices/link/frame.js';
import { FrameParser, type LinkUnit } from '../../src/devices/link/parser.js';
import { FrameWriter } from '../../src/devices/link/writer.js';
import { errorOf } from '../helpers/agent-error.js';
import { ManualClock } from './manual-clock.js';

// How the link reads bytes as a serial port delivers them: in chunks cut anywhere
// (docs/serial-protocol.md, "Frame layout", "Resync", "Inter-byte timeout"). Written to
// kill the mutants `npm run mutate` found surviving (test/README.md, "Mutation testing").

const parsers: FrameParser[] = [];
afterEach(() => {
  for (const p of parsers.splice(0)) p.destroy();
});

function setup(opts: { interByteTimeoutMs?: number } = {}) {
  const clock = new ManualClock();
  const parser = new FrameParser({ clock, ...opts });
  const units: LinkUnit[] = [];
  parser.on('data', (u: LinkUnit) => units.push(u));
  parsers.push(parser);
  const feed = async (...chunks: Array<Buffer | number[]>): Promise<void> => {
    for (const c of chunks) parser.write(Buffer.isBuffer(c) ? c : Buffer.from(c));
    await new Promise((r) => setImmediate(r));
  };
  return { parser, units, clock, feed };
}

const frameSeqs = (units: LinkUnit[]) => units.flatMap((u) => (u.kind === 'frame' ? [u.seq] : []));
const big = (seq: number, size: number) => encodeFrame(seq, { type: 'display', text: 'x'.repeat(size) });

describe('frames split across chunks', () => {
  it('a frame whose second half comes in the next chunk, after a complete frame, is not lost', async () => {
    const { units, feed } = setup();
    const a = encodeFrame(1, { type: 'hello', id: 'a' });
    const b = encodeFrame(2, { type: 'hello', id: 'b' });
    await feed(Buffer.concat([a, b.subarray(0, 9)]), b.subarray(9));
    expect(units).toEqual([
      { kind: 'frame', seq: 1, payload: { type: 'hello', id: 'a' }, raw: a },
      { kind: 'frame', seq: 2, payload: { type: 'hello', id: 'b' }, raw: b },
    ]);
  });

  it('an ACK followed by the start of a frame, then the rest', async () => {
    const { units, feed } = setup();
    const f = encodeFrame(3, { type: 'done' });
    await feed(Buffer.concat([encodeAck(2), f.subarray(0, 2)]), f.subarray(2, 5), f.subarray(5));
    expect(units.map((u) => u.kind)).toEqual(['ack', 'frame']);
    expect(frameSeqs(units)).toEqual([3]);
  });

  it('an ACK or NAK cut between its two bytes is one unit with its SEQ', async () => {
    const { units, feed } = setup();
    await feed([0x06], [0x2a], [0x15], [0x07]);
    expect(units).toEqual([
      { kind: 'ack', seq: 0x2a },
      { kind: 'nak', seq: 0x07 },
    ]);
  });

  it('noise before a split frame is counted once per chunk, by its byte count', async () => {
    const { units, feed } = setup();
    const f = encodeFrame(4, { type: 'x' });
    await feed(Buffer.concat([Buffer.from([0x41, 0x42, 0x43]), f.subarray(0, 6)]), f.subarray(6));
    expect(units[0]).toEqual({ kind: 'discarded', bytes: 3, reason: 'noise' });
    expect(frameSeqs(units)).toEqual([4]);
  });

  it('more than the first buffer can hold in one chunk: every frame decodes, and a frame split after them too', async () => {
    const { units, feed } = setup();
    const many = [big(1, 4000), big(2, 4000), big(3, 4000), big(4, 4000), big(5, 4000)];
    const tail = big(6, 4000);
    await feed(Buffer.concat([...many, tail.subarray(0, 100)]), tail.subarray(100, 3000), tail.subarray(3000));
    expect(frameSeqs(units)).toEqual([1, 2, 3, 4, 5, 6]);
    // After a big burst a frame split in small chunks still decodes.
    const next = encodeFrame(7, { type: 'hello' });
    await feed(next.subarray(0, 4), next.subarray(4));
    expect(frameSeqs(units)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('a largest frame fed in small chunks grows the buffer while waiting', async () => {
    const { units, feed } = setup();
    const lead = big(8, 4000);
    const f = big(9, 4000);
    const chunks: Buffer[] = [];
    for (let i = 0; i < lead.length; i += 1000) chunks.push(lead.subarray(i, i + 1000));
    await feed(...chunks, f.subarray(0, 4090), f.subarray(4090));
    expect(frameSeqs(units)).toEqual([8, 9]);
  });
});

describe('bytes the parser has seen before', () => {
  it('a frame waiting for its rest keeps its first bytes when a big chunk makes the buffer grow', async () => {
    const { units, feed } = setup();
    const a = big(1, 4000);
    const rest = [big(2, 4000), big(3, 4000)];
    await feed(a.subarray(0, 100), Buffer.concat([a.subarray(100), ...rest]));
    expect(frameSeqs(units)).toEqual([1, 2, 3]);
  });

  it('a lone STX after noise waits for its header, whatever the buffer held before', async () => {
    const { units, feed } = setup();
    const f = encodeFrame(7, { type: 'hello' });
    await feed(Buffer.from('ZZZZZZZZ'));
    await feed(f.subarray(0, 1));
    await feed(f.subarray(1, 3));
    await feed(f.subarray(3));
    expect(units).toEqual([
      { kind: 'discarded', bytes: 8, reason: 'noise' },
      { kind: 'frame', seq: 7, payload: { type: 'hello' }, raw: f },
    ]);
  });

  it('an STX at the end of a chunk, after an ACK, waits for its header too', async () => {
    const { units, feed } = setup();
    const f = encodeFrame(8, { type: 'hello' });
    await feed(Buffer.from('ZZZZZZZZ'));
    await feed(Buffer.concat([encodeAck(1), f.subarray(0, 1)]));
    await feed(f.subarray(1));
    expect(units.slice(1)).toEqual([
      { kind: 'ack', seq: 1 },
      { kind: 'frame', seq: 8, payload: { type: 'hello' }, raw: f },
    ]);
  });

  it('the header of an oversize frame is never read as an ACK', async () => {
    const { units, feed } = setup();
    // LEN 0x1006 (over 4096): its low byte is ACK, then SEQ 0x33.
    await feed([0x02, 0x10, 0x06, 0x33]);
    expect(units.filter((u) => u.kind === 'ack' || u.kind === 'nak')).toEqual([]);
    expect(units[0]).toEqual({ kind: 'damaged', seq: 0x33, reason: 'oversize' });
  });

  it('the LEN byte of a frame with a wrong ETX is never read as an ACK', async () => {
    const { units, feed } = setup();
    const bad = encodeFrame(0x15, Buffer.from('{"a":1}'.slice(0, 6)));
    expect(bad[2]).toBe(0x06);
    bad[bad.length - 3] = 0x00; // ETX
    await feed(bad);
    expect(units.filter((u) => u.kind === 'ack' || u.kind === 'nak')).toEqual([]);
    expect(units).toContainEqual({ kind: 'damaged', seq: 0x15, reason: 'etx' });
  });
});

describe('after a damaged frame', () => {
  it('a frame right behind a damaged one in the same chunk decodes, and ACKs after it count again', async () => {
    const { units, feed } = setup();
    const bad = encodeFrame(5, { type: 'x', v: 1 });
    bad[6] = (bad[6] as number) ^ 0x01; // payload bit flip: CRC fails
    const good = encodeFrame(6, { type: 'y' });
    await feed(Buffer.concat([bad, good]), encodeAck(6));
    expect(units.filter((u) => u.kind !== 'discarded')).toEqual([
      { kind: 'damaged', seq: 5, reason: 'crc' },
      { kind: 'frame', seq: 6, payload: { type: 'y' }, raw: good },
      { kind: 'ack', seq: 6 },
    ]);
  });

  it('an ACK arriving in the chunk after a damaged frame is an ACK', async () => {
    const { units, feed } = setup();
    const bad = encodeFrame(0x21, { a: 1 });
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 0xff;
    await feed(bad);
    await feed(encodeNak(0x21));
    expect(units.filter((u) => u.kind === 'nak')).toEqual([{ kind: 'nak', seq: 0x21 }]);
  });

  it('a payload that is valid JSON but not an object is damaged whole: nothing inside it is taken for a frame', async () => {
    const { units, feed } = setup();
    const inner = encodeFrame(9, { type: 'inner' });
    const arr = encodeFrame(8, Buffer.from(JSON.stringify([inner.toString('latin1')]), 'utf8'));
    const nul = encodeFrame(10, Buffer.from('null'));
    const str = encodeFrame(11, Buffer.from('"text"'));
    await feed(Buffer.concat([arr, nul, str]));
    expect(units).toEqual([
      { kind: 'damaged', seq: 8, reason: 'json' },
      { kind: 'damaged', seq: 10, reason: 'json' },
      { kind: 'damaged', seq: 11, reason: 'json' },
    ]);
  });

  it('an oversize LEN names the SEQ, then the real frame behind it decodes', async () => {
    const { units, feed } = setup();
    const f = encodeFrame(3, { type: 'ok' });
    await feed(Buffer.concat([Buffer.from([0x02, 0x10, 0x01, 0x44]), f]));
    expect(units[0]).toEqual({ kind: 'damaged', seq: 0x44, reason: 'oversize' });
    expect(frameSeqs(units)).toEqual([3]);
  });

  it('a LEN of 4097 is oversize, 4096 is waited for', async () => {
    const { units, feed } = setup();
    await feed([0x02, 0x10, 0x01, 0x01]);
    expect(units).toEqual([
      { kind: 'damaged', seq: 1, reason: 'oversize' },
      { kind: 'discarded', bytes: 3, reason: 'noise' },
    ]);
    const waiting = setup();
    await waiting.feed([0x02, 0x10, 0x00, 0x02]);
    expect(waiting.units).toEqual([]);
  });
});

describe('silence and the end of the stream', () => {
  it('the inter-byte timeout is the configured one, and counts from the last byte', async () => {
    const { units, feed, clock } = setup({ interByteTimeoutMs: 40 });
    const f = encodeFrame(1, { type: 'hello' });
    await feed(f.subarray(0, 5));
    clock.advance(39);
    expect(units).toEqual([]);
    clock.advance(1);
    expect(units).toEqual([{ kind: 'discarded', bytes: 5, reason: 'timeout' }]);
  });

  it('silence after a whole frame and a partial one keeps the frame and drops only the partial', async () => {
    const { units, feed, clock } = setup();
    const f = encodeFrame(2, { type: 'a' });
    await feed(Buffer.concat([f.subarray(0, 3)]));
    clock.advance(100);
    expect(units).toEqual([{ kind: 'discarded', bytes: 3, reason: 'timeout' }]);
    await feed(Buffer.concat([f, Buffer.from([0x02, 0x00])]));
    clock.advance(100);
    expect(units.slice(1).map((u) => u.kind)).toEqual(['frame', 'discarded']);
    expect(units[2]).toEqual({ kind: 'discarded', bytes: 2, reason: 'timeout' });
    expect(clock.count).toBe(0);
  });

  it('the end of the stream drops a partial frame as timed out', async () => {
    const { parser, units, feed, clock } = setup();
    await feed(encodeFrame(1, { type: 'x' }).subarray(0, 6));
    parser.end();
    await new Promise((r) => parser.once('end', r).resume());
    expect(units).toEqual([{ kind: 'discarded', bytes: 6, reason: 'timeout' }]);
    expect(clock.count).toBe(0);
  });

  it('a destroyed parser leaves no timer behind', async () => {
    const { parser, feed, clock } = setup();
    await feed([0x02, 0x00]);
    expect(clock.count).toBe(1);
    const closed = new Promise((r) => parser.once('close', r));
    parser.destroy();
    await closed;
    expect(clock.count).toBe(0);
  });
});

describe('the writer', () => {
  it('sends a frame, an ACK and a NAK each in one write, as encoded', () => {
    const out = new PassThrough();
    const writes: Buffer[] = [];
    out.on('data', (b: Buffer) => writes.push(b));
    const w = new FrameWriter(out, () => {});
    const sent = w.frame(300, { type: 'hello' });
    w.ack(257);
    w.nak(2);
    expect(sent).toEqual(encodeFrame(44, { type: 'hello' }));
    expect(writes).toEqual([sent, Buffer.from([0x06, 0x01]), Buffer.from([0x15, 0x02])]);
  });

  it('a write on a closed port, or one the port fails, is reported and never thrown', async () => {
    const errors: string[] = [];
    const ended = new PassThrough();
    ended.end();
    new FrameWriter(ended, (e) => errors.push(e.message)).ack(1);
    const destroyed = new PassThrough();
    destroyed.destroy();
    new FrameWriter(destroyed, (e) => errors.push(e.message)).nak(1);
    const failing = new Writable({ write: (_c, _e, cb) => cb(new Error('EIO')) });
    failing.on('error', () => {});
    new FrameWriter(failing, (e) => errors.push(e.message)).ack(1);
    const throwing = new Writable();
    throwing.write = () => {
      throw new Error('boom');
    };
    new FrameWriter(throwing, (e) => errors.push(e.message)).ack(1);
    const throwingText = new Writable();
    throwingText.write = () => {
      // A stream may throw anything, not only an Error.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw 'text';
    };
    new FrameWriter(throwingText, (e) => errors.push(e.message)).ack(1);
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual(['port is closed', 'port is closed', 'boom', 'text', 'EIO']);
  });
});

describe('what the link sends', () => {
  it('a message over 4096 bytes is refused before anything is written, saying how long it is', () => {
    const err = errorOf(() => encodeFrame(1, Buffer.alloc(4097, 0x20)));
    expect(err.code).toBe(ErrorCodes.LINK_OVERSIZE);
    expect(err.message).toBe('message of 4097 bytes exceeds the 4096-byte frame limit');
    expect(err.details).toEqual({ length: 4097, limit: 4096 });
    expect(encodeFrame(1, Buffer.alloc(4096, 0x20))).toHaveLength(4103);
  });

  it('frames with card or PIN data are known as such (never hex-dumped), others are not', () => {
    for (const p of [
      { type: 'cardResult' },
      { type: 'x', card: {} },
      { type: 'x', pin: 'p' },
      { type: 'x', encryptedData: 'e' },
      { type: 'x', pinblock: 'b' },
    ]) {
      expect(carriesCardData(p), JSON.stringify(p)).toBe(true);
    }
    expect(carriesCardData({ type: 'hello', id: 'a' })).toBe(false);
    expect(carriesCardData({ type: 'display', text: 'card pin' })).toBe(false);
  });
});
