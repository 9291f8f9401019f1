import { describe, expect, it } from 'vitest';
import { crc16 } from '../../src/devices/link/crc.js';
import { carriesCardData, encodeAck, encodeFrame, encodeNak } from '../../src/devices/link/frame.js';
import { isAgentError } from '../../src/core/errors.js';

describe('CRC-16/CCITT-FALSE', () => {
  it('has the check value 0x29B1 for "123456789"', () => {
    expect(crc16(Buffer.from('123456789', 'ascii'))).toBe(0x29b1);
  });

  it('covers a sub-range and the empty range', () => {
    const b = Buffer.from('xx123456789yy', 'ascii');
    expect(crc16(b, 2, 11)).toBe(0x29b1);
    expect(crc16(Buffer.alloc(0))).toBe(0xffff);
  });
});

describe('frame encoding (docs/serial-protocol.md, "Frame layout")', () => {
  it('encodes STX, big-endian LEN, SEQ, payload, ETX and the CRC over LEN..ETX', () => {
    const frame = encodeFrame(5, { type: 'hello', id: 'a1' });
    expect(frame.toString('hex')).toBe('02001a057b2274797065223a2268656c6c6f222c226964223a226131227d03af27');
  });

  it('encodes SEQ 255 and wraps larger SEQ values into one byte', () => {
    expect(encodeFrame(255, {}).toString('hex')).toBe('020002ff7b7d0367af');
    expect(encodeFrame(256 + 255, {}).toString('hex')).toBe('020002ff7b7d0367af');
  });

  it('encodes raw payload bytes as given', () => {
    expect(encodeFrame(0, Buffer.alloc(0)).toString('hex')).toBe('0200000003b4a3');
  });

  it('encodes the 4096-byte maximum and refuses one byte more with LINK_OVERSIZE', () => {
    const max = Buffer.alloc(4096, 0x20);
    const frame = encodeFrame(1, max);
    expect(frame.length).toBe(4096 + 7);
    expect(frame.readUInt16BE(1)).toBe(4096);
    let caught: unknown;
    try {
      encodeFrame(1, Buffer.alloc(4097, 0x20));
    } catch (err) {
      caught = err;
    }
    expect(isAgentError(caught, 'LINK_OVERSIZE')).toBe(true);
  });

  it('encodes ACK and NAK as two bytes', () => {
    expect([...encodeAck(7)]).toEqual([0x06, 7]);
    expect([...encodeNak(300)]).toEqual([0x15, 300 & 0xff]);
  });

  it('recognises payloads that carry card data', () => {
    expect(carriesCardData({ type: 'cardResult', id: '1', outcome: 'cancelled' })).toBe(true);
    expect(carriesCardData({ type: 'x', card: {} })).toBe(true);
    expect(carriesCardData({ type: 'hello', id: '1' })).toBe(false);
  });
});
