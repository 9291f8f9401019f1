import { afterEach, describe, expect, it } from 'vitest';
import { LineParser, type LineUnit } from '../../src/devices/lines/parser.js';
import { ManualClock } from './manual-clock.js';
import { devicesConfig, simRig, type SimRig } from './sim-rig.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('LineParser (docs/serial-protocol.md, "Barcode scanner")', () => {
  function setup(): { units: LineUnit[]; feed: (s: string | Buffer) => void; clock: ManualClock; parser: LineParser } {
    const clock = new ManualClock();
    const parser = new LineParser({ clock });
    const units: LineUnit[] = [];
    parser.on('data', (u: LineUnit) => units.push(u));
    return { units, feed: (s) => parser.write(Buffer.isBuffer(s) ? s : Buffer.from(s, 'latin1')), clock, parser };
  }

  it('ends lines on CR, LF and CR LF and skips empty lines', async () => {
    const { units, feed } = setup();
    feed('one\rtwo\nthree\r\nfour\r\n\r\n');
    await tick();
    expect(units).toEqual(['one', 'two', 'three', 'four'].map((text) => ({ kind: 'line', text })));
  });

  it('joins a line split over several chunks', async () => {
    const { units, feed } = setup();
    feed('12345');
    feed('6789\r');
    feed('\n');
    await tick();
    expect(units).toEqual([{ kind: 'line', text: '123456789' }]);
  });

  it('accepts 512 bytes and discards a longer line whole, then reads the next one', async () => {
    const { units, feed } = setup();
    feed(`${'a'.repeat(512)}\r\n`);
    feed(`${'b'.repeat(300)}`);
    feed(`${'b'.repeat(300)}\r\nafter\n`);
    await tick();
    expect(units).toEqual([
      { kind: 'line', text: 'a'.repeat(512) },
      { kind: 'discarded', bytes: 600, reason: 'overlong' },
      { kind: 'line', text: 'after' },
    ]);
  });

  it('discards a line with bytes outside printable ASCII', async () => {
    const { units, feed } = setup();
    feed(Buffer.from([0x41, 0x00, 0x42, 0x0d, 0x43, 0x0d]));
    await tick();
    expect(units).toEqual([
      { kind: 'discarded', bytes: 3, reason: 'invalid' },
      { kind: 'line', text: 'C' },
    ]);
  });

  it('drops a line left without terminator instead of gluing it to the next scan', async () => {
    const { units, feed, clock } = setup();
    feed('garb');
    await tick();
    clock.advance(1000);
    feed('code\r');
    await tick();
    expect(units).toEqual([
      { kind: 'discarded', bytes: 4, reason: 'stale' },
      { kind: 'line', text: 'code' },
    ]);
  });
});

let rig: SimRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

describe('barcode scanner driver on MockBinding', () => {
  it('completes the pending nextScan with the next line', async () => {
    rig = await simRig();
    expect(rig.peripherals.scanner.connected).toBe(true);
    const scan = rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    rig.sim.scanner.scan('WALLET-4711');
    expect(await scan).toBe('WALLET-4711');
    expect(rig.events.of('scanner.line')).toEqual([{ length: 11 }]);
  });

  it('drops a line scanned while no sale waits', async () => {
    rig = await simRig();
    rig.sim.scanner.scan('stale-code');
    await rig.events.waitFor('scanner.line');
    const scan = rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    rig.sim.scanner.scan('fresh-code', '\n');
    expect(await scan).toBe('fresh-code');
  });

  it('skips an over-long line and hands over the next one', async () => {
    rig = await simRig();
    const scan = rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    rig.sim.scanner.scan('x'.repeat(513), '\r');
    rig.sim.scanner.scan('good');
    expect(await scan).toBe('good');
  });

  it('rejects with DEVICE_TIMEOUT when nothing is scanned in time', async () => {
    rig = await simRig();
    await expect(rig.peripherals.scanner.nextScan({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
    // A scan afterwards does not complete anything, and a new wait works.
    const next = rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    rig.sim.scanner.scan('later');
    expect(await next).toBe('later');
  });

  it('rejects when aborted', async () => {
    rig = await simRig();
    const abort = new AbortController();
    const scan = rig.peripherals.scanner.nextScan({ timeoutMs: 5_000, signal: abort.signal });
    abort.abort();
    await expect(scan).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT', details: { aborted: true } });
  });

  it('allows one waiting sale at a time', async () => {
    rig = await simRig();
    const first = rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    await expect(rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'DEVICE_BUSY' });
    rig.sim.scanner.scan('one');
    expect(await first).toBe('one');
  });

  it('rejects at once when the scanner is not connected', async () => {
    rig = await simRig({ config: devicesConfig({ scanner: { enabled: false } }) });
    await expect(rig.peripherals.scanner.nextScan({ timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'DEVICE_DISCONNECTED',
    });
  });
});
