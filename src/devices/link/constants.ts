/** Wire constants of the framed link (docs/serial-protocol.md, "Frame layout", "ACK and NAK", "Retransmission"). */
export const STX = 0x02;
export const ETX = 0x03;
export const ACK = 0x06;
export const NAK = 0x15;

/** LEN is 0..4096. */
export const MAX_PAYLOAD = 4096;
/** STX + LEN(2) + SEQ before the payload. */
export const HEADER_SIZE = 4;
/** ETX + CRC(2) after the payload. */
export const TRAILER_SIZE = 3;
export const FRAME_OVERHEAD = HEADER_SIZE + TRAILER_SIZE;

/** Rule 4: a partial frame is discarded after this much silence between two bytes. */
export const INTER_BYTE_TIMEOUT_MS = 100;
/** Rule 1: how long a sender waits for ACK/NAK. */
export const ACK_TIMEOUT_MS = 500;
/** Rule 1: retransmissions after the first send before the caller gets an error. */
export const MAX_RETRANSMISSIONS = 3;
