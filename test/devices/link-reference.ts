/**
 * An independent reference decoder of the framed link, written from
 * docs/serial-protocol.md ("Frame layout", "CRC", "ACK and NAK", "Resync", "Inter-byte
 * timeout", "Size limit") and sharing no code with src/devices/link: the fuzz test
 * compares the agent's FrameParser against it unit by unit.
 *
 * It decodes one "segment" at a time: the bytes that arrived between two silences of
 * more than the inter-byte timeout. Within a segment the result does not depend on how
 * the bytes were split into reads, so the whole segment is decoded at once.
 */

export type RefUnit =
  | { kind: 'frame'; seq: number; payload: unknown }
  | { kind: 'damaged'; seq: number; reason: 'crc' | 'etx' | 'oversize' | 'utf8' | 'json' }
  | { kind: 'ack' | 'nak'; seq: number };

const STX = 0x02;
const ETX = 0x03;
const ACK = 0x06;
const NAK = 0x15;
const MAX_LEN = 4096;

/** "CRC": CRC-16/CCITT-FALSE, bit by bit (poly 0x1021, init 0xFFFF, no reflection, no final XOR). */
export function refCrc16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
      crc &= 0xffff;
    }
  }
  return crc;
}

/** "Frame layout": STX, LEN (big-endian), SEQ, PAYLOAD, ETX, CRC over LEN..ETX (big-endian). */
export function refEncode(seq: number, payload: Uint8Array | Record<string, unknown>): Buffer {
  const body = payload instanceof Uint8Array ? Buffer.from(payload) : Buffer.from(JSON.stringify(payload), 'utf8');
  const len = body.length;
  const covered = Buffer.concat([Buffer.from([(len >> 8) & 0xff, len & 0xff, seq & 0xff]), body, Buffer.from([ETX])]);
  const crc = refCrc16(covered);
  return Buffer.concat([Buffer.from([STX]), covered, Buffer.from([(crc >> 8) & 0xff, crc & 0xff])]);
}

/** Valid UTF-8: decoding and re-encoding gives back the same bytes (no replacement characters were needed). */
function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

type Candidate = { kind: 'incomplete' } | { kind: 'unit'; unit: RefUnit; next: number; stxOnlyTo: number };

/** A frame candidate at `at` (an STX) within bytes[0..end). */
function candidate(bytes: Buffer, at: number, end: number): Candidate {
  if (end - at < 4) return { kind: 'incomplete' };
  const len = (bytes[at + 1]! << 8) | bytes[at + 2]!;
  const seq = bytes[at + 3]!;
  // "Size limit": NAKed once SEQ is in; the rescan covers the header read so far.
  if (len > MAX_LEN)
    return { kind: 'unit', unit: { kind: 'damaged', seq, reason: 'oversize' }, next: at + 1, stxOnlyTo: at + 4 };
  const size = len + 7;
  if (end - at < size) return { kind: 'incomplete' };
  const etxAt = at + 4 + len;
  // "Resync": a frame failing ETX or CRC is NAKed; scanning resumes after its STX, STX only within it.
  if (bytes[etxAt] !== ETX)
    return { kind: 'unit', unit: { kind: 'damaged', seq, reason: 'etx' }, next: at + 1, stxOnlyTo: at + size };
  const sent = (bytes[etxAt + 1]! << 8) | bytes[etxAt + 2]!;
  if (refCrc16(bytes.subarray(at + 1, etxAt + 1)) !== sent)
    return { kind: 'unit', unit: { kind: 'damaged', seq, reason: 'crc' }, next: at + 1, stxOnlyTo: at + size };
  // The CRC held: boundaries are trusted, a bad payload is skipped whole.
  const body = bytes.subarray(at + 4, etxAt);
  if (!isUtf8(body))
    return { kind: 'unit', unit: { kind: 'damaged', seq, reason: 'utf8' }, next: at + size, stxOnlyTo: 0 };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { kind: 'unit', unit: { kind: 'damaged', seq, reason: 'json' }, next: at + size, stxOnlyTo: 0 };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { kind: 'unit', unit: { kind: 'damaged', seq, reason: 'json' }, next: at + size, stxOnlyTo: 0 };
  return { kind: 'unit', unit: { kind: 'frame', seq, payload: value }, next: at + size, stxOnlyTo: 0 };
}

/**
 * Decodes one segment. Outside a frame, ACK/NAK take the next byte as SEQ and anything
 * else is noise. At the silence that ends the segment ("Inter-byte timeout"), an
 * incomplete frame or ACK is dropped; the bytes behind a false STX are scanned once more,
 * for STX only, so a complete frame among them is still decoded.
 */
export function refDecodeSegment(bytes: Buffer): RefUnit[] {
  const units: RefUnit[] = [];
  const end = bytes.length;
  let pos = 0;
  let stxOnlyTo = 0;
  while (pos < end) {
    const b = bytes[pos]!;
    if (b === STX) {
      const c = candidate(bytes, pos, end);
      if (c.kind === 'incomplete') {
        // Silence: the partial frame is dropped; what follows it is scanned for STX only.
        stxOnlyTo = end;
        pos++;
        continue;
      }
      units.push(c.unit);
      stxOnlyTo = Math.max(stxOnlyTo, c.stxOnlyTo);
      pos = c.next;
      continue;
    }
    if ((b === ACK || b === NAK) && pos >= stxOnlyTo) {
      // An ACK/NAK cut off by the silence is dropped.
      if (pos + 1 < end) units.push({ kind: b === ACK ? 'ack' : 'nak', seq: bytes[pos + 1]! });
      pos += 2;
      continue;
    }
    pos++;
  }
  return units;
}
