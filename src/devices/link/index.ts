export * from './constants.js';
export { crc16 } from './crc.js';
export { encodeFrame, encodeAck, encodeNak, carriesCardData, type LinkPayload } from './frame.js';
export { FrameParser, type LinkUnit, type DamageReason, type FrameParserOptions } from './parser.js';
export { FrameWriter } from './writer.js';
export { Link, emptyCounters, type LinkCounters, type LinkOptions } from './link.js';
