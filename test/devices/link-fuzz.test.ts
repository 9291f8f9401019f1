import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/devices/link/frame.js';
import { FrameParser, type LinkUnit } from '../../src/devices/link/parser.js';
import { ManualClock } from './manual-clock.js';

/** Small seeded PRNG (mulberry32) so a failure can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(seed: number): () => Buffer {
  const rnd = prng(seed);
  const int = (n: number): number => Math.floor(rnd() * n);
  const randomBytes = (n: number): Buffer => {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = int(256);
    return b;
  };
  // Byte values the parser cares about, to make interesting collisions likely.
  const special = [0x02, 0x03, 0x06, 0x15, 0x00, 0x10, 0xff, 0x7b, 0x7d];
  const validFrame = (): Buffer => {
    const payload = { type: ['hello', 'done', 'event', 'cardResult'][int(4)], id: String(int(1e6)), pad: 'x'.repeat(int(40)) };
    return encodeFrame(int(256), payload);
  };
  return () => {
    switch (int(8)) {
      case 0:
        return randomBytes(int(48));
      case 1: {
        const b = randomBytes(int(24));
        for (let i = 0; i < b.length; i++) if (rnd() < 0.3) b[i] = special[int(special.length)] as number;
        return b;
      }
      case 2:
        return validFrame();
      case 3: {
        // Bit flips anywhere in a valid frame.
        const f = validFrame();
        const flips = 1 + int(3);
        for (let i = 0; i < flips; i++) {
          const at = int(f.length);
          f[at] = (f[at] as number) ^ (1 << int(8));
        }
        return f;
      }
      case 4: {
        // Truncated frame.
        const f = validFrame();
        return f.subarray(0, int(f.length));
      }
      case 5: {
        // Random LEN, including oversize values.
        const f = validFrame();
        f.writeUInt16BE(int(65536), 1);
        return f;
      }
      case 6: {
        // A frame with bytes inserted or removed in the middle.
        const f = validFrame();
        const at = 1 + int(f.length - 1);
        return rnd() < 0.5 ? Buffer.concat([f.subarray(0, at), randomBytes(1 + int(4)), f.subarray(at)]) : Buffer.concat([f.subarray(0, at), f.subarray(Math.min(f.length, at + 1 + int(4)))]);
      }
      default: {
        // Valid CRC around an invalid payload.
        return encodeFrame(int(256), randomBytes(int(64)));
      }
    }
  };
}

describe('FrameParser fuzz', () => {
  it('survives hundreds of thousands of random and mutated inputs and still decodes a valid frame afterwards', () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20240611);
    const next = generator(seed);
    const clock = new ManualClock();
    const parser = new FrameParser({ clock });
    let errors = 0;
    parser.on('error', () => errors++);
    const markers = new Set<string>();
    let units = 0;
    parser.on('data', (u: LinkUnit) => {
      units++;
      if (u.kind === 'frame' && u.payload.type === 'marker') markers.delete(String(u.payload.id));
    });
    const inputs = 300_000;
    const batch: Buffer[] = [];
    // Feeding through _transform directly keeps the test synchronous and bounded: no
    // stream buffering between the generator and the parser.
    const feed = (chunk: Buffer): void => parser._transform(chunk, 'binary', () => {});
    for (let i = 1; i <= inputs; i++) {
      batch.push(next());
      if (batch.length >= 1 + (i % 7)) {
        feed(Buffer.concat(batch.splice(0)));
      }
      if (i % 1000 === 0) {
        if (batch.length > 0) feed(Buffer.concat(batch.splice(0)));
        // After a silence, a whole valid frame must always come through.
        clock.advance(100);
        const id = `m${i}`;
        markers.add(id);
        feed(encodeFrame(i & 0xff, { type: 'marker', id }));
      }
    }
    clock.advance(100);
    markers.add('last');
    feed(encodeFrame(1, { type: 'marker', id: 'last' }));
    expect(errors).toBe(0);
    expect(units).toBeGreaterThan(inputs / 10);
    expect([...markers]).toEqual([]);
    parser.destroy();
  });
});
