import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/devices/link/frame.js';
import { FrameParser, type LinkUnit } from '../../src/devices/link/parser.js';
import { runLinkFuzz } from './link-fuzz-harness.js';
import { refCrc16, refDecodeSegment, refEncode } from './link-reference.js';
import type { ManualClock } from './manual-clock.js';

/**
 * The parser against an independent reference decoder (link-reference.ts, written from
 * docs/serial-protocol.md): every frame, damaged frame, ACK and NAK it emits must be the
 * reference's, in order. `npm run fuzz:link` runs the same with 2M inputs.
 * Replay a failure with FUZZ_SEED=<seed>.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20240611);

/** A parser with a planted bug: `mutate` sees every unit before it is pushed (undefined drops it). */
function buggyParser(mutate: (u: LinkUnit, n: number) => LinkUnit | undefined): (clock: ManualClock) => FrameParser {
  return (clock) => {
    let n = 0;
    const parser = new FrameParser({ clock });
    const push = parser.push.bind(parser);
    parser.push = (chunk: unknown): boolean => {
      if (chunk === null) return push(chunk);
      const u = mutate(chunk as LinkUnit, ++n);
      return u === undefined ? true : push(u);
    };
    return parser;
  };
}

describe('the reference decoder', () => {
  it('follows the documented examples: CRC check value, the example frame, resync, the size limit, the silence', () => {
    expect(refCrc16(Buffer.from('123456789'))).toBe(0x29b1);
    const payload = { type: 'clear', id: 'a1-3' };
    const frame = refEncode(0x2a, payload);
    expect(frame.subarray(0, 4)).toEqual(Buffer.from([0x02, 0x00, 0x1c, 0x2a]));
    expect(frame).toEqual(encodeFrame(0x2a, payload));
    expect(
      refDecodeSegment(Buffer.concat([Buffer.from([0xff, 0x06, 0x07]), frame, Buffer.from([0x15, 0x01])])),
    ).toEqual([
      { kind: 'ack', seq: 7 },
      { kind: 'frame', seq: 0x2a, payload },
      { kind: 'nak', seq: 1 },
    ]);
    // A damaged frame (bad CRC) is NAKed; its payload and CRC bytes 0x06 are no ACKs, the STX inside it is rescanned.
    const damaged = Buffer.from([0x02, 0x00, 0x05, 0x09, 0x06, 0x06, ...frame.subarray(0, 3), 0x03, 0x06, 0x06]);
    expect(refDecodeSegment(damaged)).toEqual([{ kind: 'damaged', seq: 9, reason: 'crc' }]);
    // With the real frame behind it, the false STX inside (LEN 28, SEQ 3) fails too, and the real one is found.
    expect(refDecodeSegment(Buffer.concat([damaged, frame]))).toEqual([
      { kind: 'damaged', seq: 9, reason: 'crc' },
      { kind: 'damaged', seq: 3, reason: 'etx' },
      { kind: 'frame', seq: 0x2a, payload },
    ]);
    expect(refDecodeSegment(Buffer.from([0x02, 0x10, 0x01, 0x05]))).toEqual([
      { kind: 'damaged', seq: 5, reason: 'oversize' },
    ]);
    // A false STX before a whole frame, then silence: the frame still comes through.
    expect(refDecodeSegment(Buffer.concat([Buffer.from([0x02, 0x00, 0x40, 0x01]), frame]))).toEqual([
      { kind: 'frame', seq: 0x2a, payload },
    ]);
    expect(refDecodeSegment(refEncode(3, Buffer.from('[1]')))).toEqual([{ kind: 'damaged', seq: 3, reason: 'json' }]);
  });
});

describe('FrameParser fuzz against the reference decoder', () => {
  it('decodes 300k random and mutated inputs exactly as the reference does', () => {
    const report = runLinkFuzz({ seed, inputs: 300_000 });
    expect(report.mismatch).toBeUndefined();
    expect(report.errors).toBe(0);
    // Every kind of unit was exercised, many times.
    expect(report.compared.frame).toBeGreaterThan(10_000);
    expect(report.compared.damaged).toBeGreaterThan(10_000);
    expect(report.compared.ack).toBeGreaterThan(1000);
    expect(report.compared.nak).toBeGreaterThan(1000);
  });

  it('catches a parser that silently drops one frame in seven', () => {
    const report = runLinkFuzz({
      seed,
      inputs: 20_000,
      makeParser: buggyParser((u, n) => (u.kind === 'frame' && n % 7 === 0 ? undefined : u)),
    });
    expect(report.errors).toBe(0);
    expect(report.mismatch).toMatch(/expected frame seq \d+ .* the parser gave/);
  });

  it('catches a parser that gives a damaged frame the wrong reason, or an ACK the wrong SEQ', () => {
    const reason = runLinkFuzz({
      seed,
      inputs: 20_000,
      makeParser: buggyParser((u) => (u.kind === 'damaged' && u.reason === 'etx' ? { ...u, reason: 'crc' } : u)),
    });
    expect(reason.mismatch).toMatch(/expected damaged seq \d+ \(etx\), the parser gave damaged seq \d+ \(crc\)/);
    const ack = runLinkFuzz({
      seed,
      inputs: 20_000,
      makeParser: buggyParser((u) => (u.kind === 'ack' ? { ...u, seq: (u.seq + 1) & 0xff } : u)),
    });
    expect(ack.mismatch).toMatch(/expected ack seq/);
  });
});
