/**
 * CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor
 * (docs/serial-protocol.md, "CRC"). Check value of "123456789" is 0x29B1.
 */
const TABLE = buildTable();

// One entry per byte value, built from its index (a loop writing into a sized array would
// let a bound one too far write past the end unnoticed: typed arrays ignore it).
function buildTable(): Uint16Array {
  return Uint16Array.from({ length: 256 }, (_, i) => {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    return crc;
  });
}

export function crc16(data: Uint8Array, start = 0, end = data.length, init = 0xffff): number {
  let crc = init;
  for (let i = start; i < end; i++)
    crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ (data[i] as number)) & 0xff] as number);
  return crc;
}
