import { isDeepStrictEqual } from 'node:util';
import { FrameParser, type LinkUnit } from '../../src/devices/link/parser.js';
import { refDecodeSegment, refEncode, type RefUnit } from './link-reference.js';
import { ManualClock } from './manual-clock.js';
import { seededRandom } from '../../scripts/lib/seeded-random.js';

/**
 * The link fuzz run shared by test/devices/link-fuzz.test.ts (300k inputs in `npm test`)
 * and scripts/fuzz/link.ts (`npm run fuzz:link`, 2M): random and mutated input, fed to
 * the agent's FrameParser in random chunks with silences between, every unit it emits
 * compared with the reference decoder (link-reference.ts, written from
 * docs/serial-protocol.md). No vitest here: the script imports it too.
 */

function generator(rnd: () => number): () => Buffer {
  const int = (n: number): number => Math.floor(rnd() * n);
  const randomBytes = (n: number): Buffer => {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = int(256);
    return b;
  };
  // Byte values the parser cares about, to make interesting collisions likely.
  const special = [0x02, 0x03, 0x06, 0x15, 0x00, 0x10, 0xff, 0x7b, 0x7d];
  const validFrame = (): Buffer => {
    const payload = {
      type: ['hello', 'done', 'event', 'cardResult'][int(4)],
      id: String(int(1e6)),
      pad: 'x'.repeat(int(40)),
    };
    return refEncode(int(256), payload);
  };
  return () => {
    switch (int(9)) {
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
        return rnd() < 0.5
          ? Buffer.concat([f.subarray(0, at), randomBytes(1 + int(4)), f.subarray(at)])
          : Buffer.concat([f.subarray(0, at), f.subarray(Math.min(f.length, at + 1 + int(4)))]);
      }
      case 7:
        // An ACK or NAK, as the peer sends them between frames.
        return Buffer.from([rnd() < 0.5 ? 0x06 : 0x15, int(256)]);
      default: {
        // Valid CRC around an invalid payload: random bytes, a JSON array, a string, or a clean object.
        const kinds = [
          randomBytes(int(64)),
          Buffer.from('[1,2]'),
          Buffer.from('"s"'),
          Buffer.from('{"type":"x"}'),
          Buffer.from([0xc3, 0x28]),
        ];
        return refEncode(int(256), kinds[int(kinds.length)] as Buffer);
      }
    }
  };
}

/** What the comparison sees of a parser unit: noise and timeout discards are not compared (their counts depend on read boundaries). */
function comparable(u: LinkUnit): RefUnit | undefined {
  switch (u.kind) {
    case 'frame':
      return { kind: 'frame', seq: u.seq, payload: u.payload };
    case 'damaged':
      return { kind: 'damaged', seq: u.seq, reason: u.reason };
    case 'ack':
    case 'nak':
      return { kind: u.kind, seq: u.seq };
    default:
      return undefined;
  }
}

export interface FuzzOptions {
  seed: number;
  inputs: number;
  /** The parser under test (default the agent's FrameParser); tests inject a broken one. */
  makeParser?: (clock: ManualClock) => FrameParser;
  /** Inputs between two silences of the line (default 1000). */
  segmentInputs?: number;
}

export interface FuzzReport {
  seed: number;
  inputs: number;
  bytes: number;
  segments: number;
  /** Units compared, by kind. */
  compared: Record<RefUnit['kind'], number>;
  /** Stream errors emitted by the parser (it must emit none). */
  errors: number;
  /** The first difference from the reference, with where to replay it; undefined when none. */
  mismatch: string | undefined;
}

function describeUnit(u: RefUnit | undefined): string {
  if (u === undefined) return 'nothing';
  return u.kind === 'frame'
    ? `frame seq ${u.seq} ${JSON.stringify(u.payload).slice(0, 80)}`
    : u.kind === 'damaged'
      ? `damaged seq ${u.seq} (${u.reason})`
      : `${u.kind} seq ${u.seq}`;
}

/**
 * Feeds `inputs` generated inputs to the parser in random chunks (1 to 7 inputs each),
 * with a silence of the inter-byte timeout every `segmentInputs` inputs, and compares
 * each segment's units with the reference decoder's. Stops at the first difference.
 */
export function runLinkFuzz(opts: FuzzOptions): FuzzReport {
  const rnd = seededRandom(opts.seed);
  const next = generator(rnd);
  const clock = new ManualClock();
  const parser = opts.makeParser ? opts.makeParser(clock) : new FrameParser({ clock });
  const segmentInputs = opts.segmentInputs ?? 1000;
  const report: FuzzReport = {
    seed: opts.seed,
    inputs: 0,
    bytes: 0,
    segments: 0,
    compared: { frame: 0, damaged: 0, ack: 0, nak: 0 },
    errors: 0,
    mismatch: undefined,
  };
  parser.on('error', () => report.errors++);
  let got: RefUnit[] = [];
  parser.on('data', (u: LinkUnit) => {
    const c = comparable(u);
    if (c) got.push(c);
  });
  // Feeding through _transform directly keeps the run synchronous and bounded: no
  // stream buffering between the generator and the parser.
  const feed = (chunk: Buffer): void => parser._transform(chunk, 'binary', () => {});
  let segment: Buffer[] = [];
  let batch: Buffer[] = [];
  let batchSize = 1 + Math.floor(rnd() * 7);
  const flushBatch = (): void => {
    if (batch.length === 0) return;
    const chunk = Buffer.concat(batch);
    batch = [];
    batchSize = 1 + Math.floor(rnd() * 7);
    segment.push(chunk);
    report.bytes += chunk.length;
    feed(chunk);
  };
  const endSegment = (): boolean => {
    flushBatch();
    // The line goes quiet for the inter-byte timeout: the parser drops its partial frame.
    clock.advance(100);
    const want = refDecodeSegment(Buffer.concat(segment));
    segment = [];
    report.segments++;
    const n = Math.max(want.length, got.length);
    for (let i = 0; i < n; i++) {
      if (!isDeepStrictEqual(got[i], want[i])) {
        report.mismatch = `segment ${report.segments} (inputs up to ${report.inputs}, seed ${opts.seed}): unit ${i + 1} of ${want.length} expected ${describeUnit(want[i])}, the parser gave ${describeUnit(got[i])} (${got.length} units)`;
        return false;
      }
      report.compared[(want[i] as RefUnit).kind]++;
    }
    got = [];
    return true;
  };
  try {
    for (let i = 1; i <= opts.inputs; i++) {
      batch.push(next());
      report.inputs = i;
      if (batch.length >= batchSize) flushBatch();
      if (i % segmentInputs === 0 && !endSegment()) return report;
    }
    endSegment();
    return report;
  } finally {
    parser.destroy();
  }
}
