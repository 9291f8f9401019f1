import { create } from 'qrcode';
import { afterEach, describe, expect, it } from 'vitest';
import { packModules, qrMatrix, rowBytes, unpackModules } from '../../src/devices/qr-matrix.js';
import { devicesConfig, simRig, type SimRig } from './sim-rig.js';

let rig: SimRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

function expectedMatrix(text: string): boolean[][] {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const rows: boolean[][] = [];
  for (let r = 0; r < modules.size; r++) {
    const row: boolean[] = [];
    for (let c = 0; c < modules.size; c++) row.push(modules.get(r, c) === 1);
    rows.push(row);
  }
  return rows;
}

describe('QR module matrix (docs/serial-protocol.md, "Customer display", showQr)', () => {
  it('packs row-major, MSB first, each row padded to a whole byte', () => {
    // 9 columns: two bytes per row; the second byte holds column 8 in its top bit.
    const dark = new Set(['0,0', '0,8', '1,1', '8,7']);
    const packed = packModules(9, (r, c) => dark.has(`${r},${c}`));
    expect(packed.length).toBe(18);
    expect([...packed.subarray(0, 4)]).toEqual([0x80, 0x80, 0x40, 0x00]);
    expect([...packed.subarray(16)]).toEqual([0x01, 0x00]);
    expect(unpackModules(9, packed)[8]?.[7]).toBe(true);
  });

  it('matches qrcode.create(text, { errorCorrectionLevel: "M" }).modules', () => {
    const text = 'https://pay.example/qr/9f8e7d6c5b4a?amount=12.34&currency=EUR';
    const { size, packed } = qrMatrix(text);
    const modules = create(text, { errorCorrectionLevel: 'M' }).modules;
    expect(size).toBe(modules.size);
    expect(packed.length).toBe(rowBytes(size) * size);
    expect(unpackModules(size, packed)).toEqual(expectedMatrix(text));
  });

  it('refuses packed data of the wrong length', () => {
    expect(() => unpackModules(21, Buffer.alloc(10))).toThrow(RangeError);
  });
});

describe('customer display driver on MockBinding', () => {
  it('handshakes and reports its size', async () => {
    rig = await simRig();
    expect(rig.peripherals.display.connected).toBe(true);
    expect(rig.peripherals.display.info).toEqual({ model: 'SIM-DISPLAY-1', width: 240, height: 320 });
  });

  it('draws the QR code: the display decodes the same matrix qrcode makes at level M', async () => {
    rig = await simRig();
    const code = 'WALLETA:tx=abc123;amount=1234;cur=EUR';
    await rig.peripherals.display.showQr(code, '12.34 EUR', {
      clientTransactionId: 'tx-9',
      expireTime: '2030-01-01T00:00:00Z',
    });
    const qr = rig.sim.display.lastQr;
    expect(qr?.caption).toBe('12.34 EUR');
    expect(qr?.matrix).toEqual(expectedMatrix(code));
    expect(rig.sim.display.screen.kind).toBe('qr');
    const sent = rig.sim.display.receivedOfType('showQr')[0];
    expect(sent).toMatchObject({ type: 'showQr', size: qr?.size, caption: '12.34 EUR' });
    const [event] = rig.events.of('display.qr');
    expect(event).toMatchObject({
      codeValue: code,
      caption: '12.34 EUR',
      clientTransactionId: 'tx-9',
      expireTime: '2030-01-01T00:00:00Z',
    });
    expect(event?.svg).toMatch(/^<svg/);
  });

  it('shows text and clears the screen', async () => {
    rig = await simRig();
    await rig.peripherals.display.showText(['Total', '12.34 EUR']);
    expect(rig.sim.display.screen).toEqual({ kind: 'text', lines: ['Total', '12.34 EUR'] });
    await rig.peripherals.display.clear();
    expect(rig.sim.display.screen).toEqual({ kind: 'blank' });
    expect(rig.sim.display.lastText).toEqual(['Total', '12.34 EUR']);
  });

  it('refuses more than 4 lines before sending anything', async () => {
    rig = await simRig();
    await expect(rig.peripherals.display.showText(['1', '2', '3', '4', '5'])).rejects.toMatchObject({
      code: 'INPUT_INVALID',
    });
    expect(rig.sim.display.receivedOfType('showText')).toHaveLength(0);
  });

  it('rejects with DEVICE_TIMEOUT when the display never says done', async () => {
    rig = await simRig();
    rig.sim.display.mute = true;
    await expect(rig.peripherals.display.showText(['hello'])).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
    await expect(rig.peripherals.display.clear()).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
    await expect(rig.peripherals.display.showQr('x', 'y')).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
    // The display answers again: the next request works.
    rig.sim.display.mute = false;
    await rig.peripherals.display.clear();
  });

  it('refuses a QR code too big for one frame with LINK_OVERSIZE', async () => {
    rig = await simRig();
    await expect(rig.peripherals.display.showQr('A'.repeat(2500), 'big')).rejects.toMatchObject({
      code: 'LINK_OVERSIZE',
    });
  });

  it('still publishes the QR for the counter page when the display is away', async () => {
    rig = await simRig({ config: devicesConfig({ display: { enabled: false } }) });
    await expect(rig.peripherals.display.showQr('code-1', '1.00 EUR')).rejects.toMatchObject({
      code: 'DEVICE_DISCONNECTED',
    });
    expect(rig.events.of('display.qr')).toMatchObject([{ codeValue: 'code-1', caption: '1.00 EUR' }]);
  });
});
