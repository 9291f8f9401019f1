import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/devices/link/frame.js';
import { FrameParser, type LinkUnit } from '../../src/devices/link/parser.js';
import { ManualClock } from './manual-clock.js';

function setup(): { parser: FrameParser; units: LinkUnit[]; clock: ManualClock; feed: (b: Buffer | number[]) => void } {
  const clock = new ManualClock();
  const parser = new FrameParser({ clock });
  const units: LinkUnit[] = [];
  parser.on('data', (u: LinkUnit) => units.push(u));
  const feed = (b: Buffer | number[]): void => {
    parser.write(Buffer.isBuffer(b) ? b : Buffer.from(b));
  };
  parsers.push(parser);
  return { parser, units, clock, feed };
}

const parsers: FrameParser[] = [];
afterEach(() => {
  for (const p of parsers.splice(0)) p.destroy();
});

/** Lets the Transform run the writes queued so far. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function frames(units: LinkUnit[]): Array<{ seq: number; payload: unknown }> {
  return units
    .filter((u) => u.kind === 'frame')
    .map((u) => ({ seq: u.seq, payload: u.kind === 'frame' ? u.payload : undefined }));
}

describe('FrameParser', () => {
  it('decodes a frame given as a byte vector', async () => {
    const { units, feed } = setup();
    feed(Buffer.from('02001a057b2274797065223a2268656c6c6f222c226964223a226131227d03af27', 'hex'));
    await tick();
    expect(frames(units)).toEqual([{ seq: 5, payload: { type: 'hello', id: 'a1' } }]);
  });

  it('decodes a frame split into single bytes and several frames in one chunk', async () => {
    const { units, feed } = setup();
    const f = encodeFrame(9, { type: 'done', id: 'x' });
    for (const byte of f) feed([byte]);
    feed(Buffer.concat([encodeFrame(10, { type: 'a' }), encodeFrame(11, { type: 'b' })]));
    await tick();
    expect(frames(units).map((u) => u.seq)).toEqual([9, 10, 11]);
  });

  it('discards noise before STX and resynchronises (rule 3)', async () => {
    const { units, feed } = setup();
    feed(Buffer.concat([Buffer.from([0x00, 0xff, 0x03, 0x41, 0x42]), encodeFrame(1, { type: 'hello' })]));
    await tick();
    expect(frames(units)).toEqual([{ seq: 1, payload: { type: 'hello' } }]);
    expect(units.find((u) => u.kind === 'discarded')).toEqual({ kind: 'discarded', bytes: 5, reason: 'noise' });
  });

  it('reports ACK and NAK with their SEQ', async () => {
    const { units, feed } = setup();
    feed([0x06, 0x02, 0x15, 0x07]);
    await tick();
    expect(units).toEqual([
      { kind: 'ack', seq: 2 },
      { kind: 'nak', seq: 7 },
    ]);
  });

  it('reports a frame with a bad CRC as damaged and still decodes the next one', async () => {
    const { units, feed } = setup();
    const bad = encodeFrame(3, { type: 'hello', id: '1' });
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 0xff;
    feed(Buffer.concat([bad, encodeFrame(4, { type: 'hello', id: '2' })]));
    await tick();
    expect(units.filter((u) => u.kind === 'damaged')).toEqual([{ kind: 'damaged', seq: 3, reason: 'crc' }]);
    expect(frames(units)).toEqual([{ seq: 4, payload: { type: 'hello', id: '2' } }]);
  });

  it('reports a frame whose payload bit flipped as damaged (crc)', async () => {
    const { units, feed } = setup();
    const bad = encodeFrame(3, { type: 'hello', id: '1' });
    bad[8] = (bad[8] as number) ^ 0x01;
    feed(bad);
    await tick();
    expect(units).toContainEqual({ kind: 'damaged', seq: 3, reason: 'crc' });
    expect(frames(units)).toEqual([]);
  });

  it('reports a missing ETX as damaged', async () => {
    const { units, feed } = setup();
    const bad = encodeFrame(8, { type: 'x' });
    bad[bad.length - 3] = 0x04;
    feed(bad);
    await tick();
    expect(units).toContainEqual({ kind: 'damaged', seq: 8, reason: 'etx' });
  });

  it('reports LEN over 4096 as damaged (oversize) once SEQ is known, then resynchronises', async () => {
    const { units, feed } = setup();
    feed(
      Buffer.concat([Buffer.from([0x02, 0x10, 0x01, 0x2a]), Buffer.from('garbage'), encodeFrame(43, { type: 'ok' })]),
    );
    await tick();
    expect(units[0]).toEqual({ kind: 'damaged', seq: 42, reason: 'oversize' });
    expect(frames(units)).toEqual([{ seq: 43, payload: { type: 'ok' } }]);
  });

  it('accepts exactly 4096 payload bytes', async () => {
    const { units, feed } = setup();
    const text = JSON.stringify({ type: 'big', pad: '' });
    const pad = 'p'.repeat(4096 - text.length);
    const payload = { type: 'big', pad };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBe(4096);
    feed(encodeFrame(1, payload));
    await tick();
    expect(frames(units)).toEqual([{ seq: 1, payload }]);
  });

  it('reports a payload that is not UTF-8 as damaged (utf8)', async () => {
    const { units, feed } = setup();
    feed(encodeFrame(12, Buffer.from([0x7b, 0xc3, 0x28, 0x7d])));
    await tick();
    expect(units).toEqual([{ kind: 'damaged', seq: 12, reason: 'utf8' }]);
  });

  it('reports a payload that is not a JSON object as damaged (json)', async () => {
    const { units, feed } = setup();
    feed(
      Buffer.concat([
        encodeFrame(1, Buffer.from('{"type":')),
        encodeFrame(2, Buffer.from('[1,2]')),
        encodeFrame(3, Buffer.from('null')),
        encodeFrame(4, Buffer.alloc(0)),
      ]),
    );
    await tick();
    expect(units).toEqual([
      { kind: 'damaged', seq: 1, reason: 'json' },
      { kind: 'damaged', seq: 2, reason: 'json' },
      { kind: 'damaged', seq: 3, reason: 'json' },
      { kind: 'damaged', seq: 4, reason: 'json' },
    ]);
  });

  it('discards a partial frame after 100 ms between two bytes (rule 4)', async () => {
    const { units, feed, clock } = setup();
    const f = encodeFrame(1, { type: 'hello', id: 'one' });
    feed(f.subarray(0, 10));
    await tick();
    clock.advance(99);
    feed(f.subarray(10, 12));
    await tick();
    clock.advance(99);
    expect(units).toEqual([]);
    clock.advance(1);
    expect(units).toEqual([{ kind: 'discarded', bytes: 12, reason: 'timeout' }]);
    // The rest of the old frame is noise now; the next whole frame decodes.
    feed(Buffer.concat([f.subarray(12), encodeFrame(2, { type: 'hello', id: 'two' })]));
    await tick();
    expect(frames(units)).toEqual([{ seq: 2, payload: { type: 'hello', id: 'two' } }]);
  });

  it('does not let a stale partial frame swallow the first bytes of the next one', async () => {
    const { units, feed, clock } = setup();
    feed([0x02, 0x00]);
    await tick();
    clock.advance(150);
    feed(encodeFrame(6, { type: 'hello' }));
    await tick();
    expect(frames(units)).toEqual([{ seq: 6, payload: { type: 'hello' } }]);
  });

  it('finds a whole frame behind a false STX whose LEN was never reached', async () => {
    const { units, feed, clock } = setup();
    // Noise that looks like the start of a 300-byte frame, then a real frame, then silence.
    feed(Buffer.concat([Buffer.from([0x02, 0x01, 0x2c, 0x09]), encodeFrame(7, { type: 'hello' })]));
    await tick();
    expect(frames(units)).toEqual([]);
    clock.advance(100);
    expect(frames(units)).toEqual([{ seq: 7, payload: { type: 'hello' } }]);
  });

  it('never takes a LEN or CRC byte of a damaged frame for an ACK', async () => {
    const { units, feed } = setup();
    // LEN low byte 0x06 then SEQ 0x15: rescanning the damaged frame must not yield ACK 0x15.
    const bad = encodeFrame(0x15, Buffer.from('{"a":1 }'.slice(0, 6)));
    expect(bad[2]).toBe(0x06);
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 0x55;
    feed(bad);
    await tick();
    expect(units.filter((u) => u.kind === 'ack' || u.kind === 'nak')).toEqual([]);
    expect(units).toContainEqual({ kind: 'damaged', seq: 0x15, reason: 'crc' });
  });

  it('drops a truncated ACK after the inter-byte timeout', async () => {
    const { units, feed, clock } = setup();
    feed([0x06]);
    await tick();
    clock.advance(100);
    expect(units).toEqual([{ kind: 'discarded', bytes: 1, reason: 'timeout' }]);
  });

  it('leaves no timer behind once a frame completes', async () => {
    const { feed, clock } = setup();
    const f = encodeFrame(1, { type: 'x' });
    feed(f.subarray(0, 3));
    await tick();
    expect(clock.count).toBe(1);
    feed(f.subarray(3));
    await tick();
    expect(clock.count).toBe(0);
  });
});
