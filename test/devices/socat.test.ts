import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { create } from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/core/logger.js';
import { createPeripherals, type PeripheralSet } from '../../src/devices/peripherals.js';
import { closeSerialPort, openSerialPort, systemBinding, type OpenPort } from '../../src/devices/serial-port.js';
import { EventBus } from '../../src/events/bus.js';
import { SimulatedDisplay } from '../../src/sim/devices/simulated-display.js';
import { SimulatedReader } from '../../src/sim/devices/simulated-reader.js';
import { SimulatedScanner } from '../../src/sim/devices/simulated-scanner.js';
import { tempDir } from '../helpers/temp-dir.js';
import { EventLog } from './sim-rig.js';
import { socatPair, type PtyPair } from './pty-pair.js';

/**
 * The same driver checks as on MockBinding, but over socat pseudo-terminals, so the
 * agent's real serialport binding (bindings-cpp) does the I/O.
 */
const pairs: PtyPair[] = [];
const simPorts: OpenPort[] = [];
let tmp: { dir: string; cleanup: () => void };
let peripherals: PeripheralSet;
let reader: SimulatedReader;
/** The reader's device end of its pseudo-terminal pair. */
let readerPort: OpenPort;
let display: SimulatedDisplay;
let scanner: SimulatedScanner;
let events: EventLog;
let readerLinks: { a: string; b: string };

async function openDevicePort(path: string): Promise<OpenPort> {
  const port = await openSerialPort({ path, baudRate: 115200, binding: systemBinding() });
  port.on('error', () => {});
  simPorts.push(port);
  return port;
}

beforeAll(async () => {
  tmp = tempDir('terminal-agent-pty-');
  readerLinks = { a: join(tmp.dir, 'reader-agent'), b: join(tmp.dir, 'reader-device') };
  const readerPair = await socatPair(readerLinks);
  const displayPair = await socatPair();
  const scannerPair = await socatPair();
  pairs.push(readerPair, displayPair, scannerPair);
  const log = silentLogger();
  readerPort = await openDevicePort(readerPair.b);
  reader = new SimulatedReader(readerPort, { log });
  display = new SimulatedDisplay(await openDevicePort(displayPair.b), { log });
  scanner = new SimulatedScanner(await openDevicePort(scannerPair.b));
  const config = configSchema.parse({
    devices: {
      simulate: false,
      reader: { path: readerPair.a, requestTimeoutMs: 1_000 },
      display: { path: displayPair.a, requestTimeoutMs: 500 },
      scanner: { path: scannerPair.a },
      reconnectBaseMs: 20,
      reconnectCapMs: 100,
    },
  }).devices;
  const bus = new EventBus();
  events = new EventLog(bus);
  peripherals = createPeripherals({ config, bus, log, binding: systemBinding() });
  await peripherals.start();
});

afterAll(async () => {
  await peripherals?.stop();
  reader?.close();
  display?.close();
  for (const p of simPorts) await closeSerialPort(p);
  for (const p of pairs) await p.kill();
  tmp?.cleanup();
});

describe('drivers on socat pseudo-terminals (real binding)', () => {
  it('connects all three devices through the real binding', () => {
    expect(peripherals.reader.connected).toBe(true);
    expect(peripherals.display.connected).toBe(true);
    expect(peripherals.scanner.connected).toBe(true);
    expect(peripherals.reader.info?.model).toBe('SIM-READER-1');
    expect(peripherals.display.info).toMatchObject({ width: 240, height: 320 });
  });

  it('reads a chip card with PIN', async () => {
    reader.nextCard({ delayMs: 0, pinDelayMs: 0, entryMode: 'ContactChip', onlinePin: true });
    const result = await peripherals.reader.readCard({
      amount: 999,
      currency: 'EUR',
      entryModes: ['ContactChip'],
      offlineAllowed: false,
    });
    expect(result).toMatchObject({ outcome: 'ok', entryMode: 'ContactChip', pin: { format: 'ISO0' } });
  });

  it('reports a declined card', async () => {
    reader.nextCard({ delayMs: 0, result: 'decline' });
    const result = await peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(result.outcome).toBe('declined');
  });

  it('cancels on the reader after the timeout', async () => {
    reader.nextCard({ result: 'noAnswer' });
    const result = await peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
      timeoutMs: 200,
    });
    expect(result.outcome).toBe('timeout');
    expect(reader.receivedOfType('cancel')).toHaveLength(1);
    expect(reader.busy).toBe(false);
  });

  it('ends a payment within seconds when every copy of the card result arrives damaged (the named cause, reader kept)', async () => {
    reader.nextCard({ delayMs: 0, pinDelayMs: 0, entryMode: 'ContactChip', fault: 'damagedResult' });
    const t0 = performance.now();
    try {
      const result = await peripherals.reader.readCard({
        amount: 1,
        currency: 'EUR',
        entryModes: ['ContactChip'],
        offlineAllowed: false,
        timeoutMs: 90_000,
      });
      expect(result).toEqual({
        outcome: 'error',
        fault: 'damaged_messages',
        reason: "the card reader's messages arrived damaged",
      });
      // Generous: NAKs are answered at once, so this takes milliseconds; the card timeout is 90 s.
      expect(performance.now() - t0).toBeLessThan(10_000);
      expect(peripherals.reader.connected).toBe(true);
    } finally {
      reader.repair();
    }
  });

  it('shows a result on the reader', async () => {
    await peripherals.reader.showResult(false, 'DECLINED');
    expect(reader.lastResult).toEqual({ approved: false, text: 'DECLINED' });
  });

  it('draws a QR code the display decodes back to the level-M matrix', async () => {
    const code = 'https://wallet.example/pay/8c1f2e';
    await peripherals.display.showQr(code, '5.00 EUR');
    const { modules } = create(code, { errorCorrectionLevel: 'M' });
    expect(display.lastQr?.size).toBe(modules.size);
    expect(display.lastQr?.matrix.flat().map((d) => (d ? 1 : 0))).toEqual([...modules.data]);
  });

  it('shows text, clears, and times out when the display is silent', async () => {
    await peripherals.display.showText(['Thank you']);
    expect(display.screen).toEqual({ kind: 'text', lines: ['Thank you'] });
    await peripherals.display.clear();
    expect(display.screen).toEqual({ kind: 'blank' });
    display.mute = true;
    await expect(peripherals.display.clear()).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
    display.mute = false;
  });

  it('hands scanned lines to nextScan and drops an over-long one', async () => {
    const first = peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    scanner.scan('CODE-CR', '\r');
    expect(await first).toBe('CODE-CR');
    const second = peripherals.scanner.nextScan({ timeoutMs: 5_000 });
    scanner.scan('z'.repeat(600), '\n');
    scanner.scan('CODE-CRLF', '\r\n');
    expect(await second).toBe('CODE-CRLF');
    await expect(peripherals.scanner.nextScan({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
  });

  it('reconnects after the pseudo-terminal vanishes and comes back', async () => {
    // Every wait below is for the state asserted next, never for time (test/README.md,
    // "A test must be able to fail"): each one starts from the events after the step that
    // causes it, so a status from before (a reconnect after a stall under load) is never
    // taken for this one.
    const old = pairs[0] as PtyPair;
    reader.close();
    const beforeUnplug = events.events.length;
    await old.kill();
    await closeSerialPort(readerPort);
    await events.waitFor('device.status', (d) => d.device === 'reader' && d.state === 'disconnected', beforeUnplug);
    expect(peripherals.reader.connected).toBe(false);
    // A replugged reader is powered when its port appears: the new pseudo-terminals are
    // made under a staging name, the simulated reader opens its end, and only then does the
    // agent's path appear (a rename is atomic), so the agent never finds the path with no
    // device behind it.
    const staged = { a: join(tmp.dir, 'reader-agent-staged'), b: readerLinks.b };
    const again = await socatPair(staged);
    pairs[0] = again;
    readerPort = await openDevicePort(again.b);
    reader = new SimulatedReader(readerPort, { log: silentLogger() });
    const beforeReplug = events.events.length;
    renameSync(staged.a, readerLinks.a);
    await events.waitFor(
      'device.status',
      (d) => d.device === 'reader' && d.state === 'connected' && d.reason === 'reconnected',
      beforeReplug,
    );
    expect(peripherals.reader.connected).toBe(true);
    reader.nextCard({ delayMs: 0 });
    const result = await peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(result.outcome).toBe('ok');
  });
});
