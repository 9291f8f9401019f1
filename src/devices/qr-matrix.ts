import type { create } from 'qrcode';
import { AgentError, ErrorCodes, qrCode } from '../core/index.js';

export interface PackedQr {
  /** Modules per side (N). */
  size: number;
  /** N×N modules, row-major, 1 = dark, MSB first, each row padded to a whole byte. */
  packed: Buffer;
}

/** Bytes per packed row. */
export function rowBytes(size: number): number {
  return Math.ceil(size / 8);
}

/** Packs a module matrix the way showQr lays it out (docs/serial-protocol.md, "Customer display"). */
export function packModules(size: number, isDark: (row: number, col: number) => boolean): Buffer {
  const stride = rowBytes(size);
  const out = Buffer.alloc(stride * size);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (isDark(r, c)) out[r * stride + (c >> 3)] = (out[r * stride + (c >> 3)] as number) | (0x80 >> (c & 7));
    }
  }
  return out;
}

/** The inverse of packModules; rejects data of the wrong length. */
export function unpackModules(size: number, packed: Buffer): boolean[][] {
  const stride = rowBytes(size);
  if (packed.length !== stride * size)
    throw new RangeError(`expected ${stride * size} bytes for a ${size}×${size} matrix, got ${packed.length}`);
  const rows: boolean[][] = [];
  for (let r = 0; r < size; r++) {
    const row: boolean[] = [];
    for (let c = 0; c < size; c++) row.push(((packed[r * stride + (c >> 3)] as number) & (0x80 >> (c & 7))) !== 0);
    rows.push(row);
  }
  return rows;
}

/** Renders `text` as a QR code at error correction level M (section 2) and packs it. */
export function qrMatrix(text: string): PackedQr {
  let qr: ReturnType<typeof create>;
  try {
    qr = qrCode().create(text, { errorCorrectionLevel: 'M' });
  } catch (err) {
    throw new AgentError(
      ErrorCodes.DEVICE_ERROR,
      `cannot draw a QR code for ${text.length} characters: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  const { size } = qr.modules;
  return { size, packed: packModules(size, (r, c) => qr.modules.get(r, c) === 1) };
}
