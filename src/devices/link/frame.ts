import { AgentError, ErrorCodes } from '../../core/index.js';
import { ACK, ETX, FRAME_OVERHEAD, HEADER_SIZE, MAX_PAYLOAD, NAK, STX } from './constants.js';
import { crc16 } from './crc.js';

/** A JSON object payload (docs/serial-protocol.md, "Frame layout" and "Messages"). */
export type LinkPayload = Record<string, unknown>;

/** STX LEN(be16) SEQ PAYLOAD ETX CRC(be16); the CRC covers LEN..ETX (section 1). */
export function encodeFrame(seq: number, payload: LinkPayload | Buffer): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload), 'utf8');
  if (body.length > MAX_PAYLOAD) {
    throw new AgentError(
      ErrorCodes.LINK_OVERSIZE,
      `message of ${body.length} bytes exceeds the ${MAX_PAYLOAD}-byte frame limit`,
      {
        details: { length: body.length, limit: MAX_PAYLOAD },
      },
    );
  }
  const frame = Buffer.allocUnsafe(body.length + FRAME_OVERHEAD);
  frame[0] = STX;
  frame.writeUInt16BE(body.length, 1);
  frame[3] = seq & 0xff;
  body.copy(frame, HEADER_SIZE);
  const etxAt = HEADER_SIZE + body.length;
  frame[etxAt] = ETX;
  frame.writeUInt16BE(crc16(frame, 1, etxAt + 1), etxAt + 1);
  return frame;
}

export function encodeAck(seq: number): Buffer {
  return Buffer.from([ACK, seq & 0xff]);
}

export function encodeNak(seq: number): Buffer {
  return Buffer.from([NAK, seq & 0xff]);
}

/**
 * Whether a payload carries card data (a cardResult, or card/PIN fields): such frames are
 * never hex-dumped, not even at trace level (docs/architecture.md, "Invariants" 4).
 */
export function carriesCardData(payload: LinkPayload): boolean {
  return (
    payload.type === 'cardResult' ||
    'card' in payload ||
    'pin' in payload ||
    'encryptedData' in payload ||
    'pinblock' in payload
  );
}
