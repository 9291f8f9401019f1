import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPorts } from '../../src/cli/commands/devices.js';
import { SimulatedPorts } from '../../src/sim/devices/simulated-ports.js';
import { tempDir } from '../helpers/temp-dir.js';
import { devicesConfig } from './sim-rig.js';
import { runCli } from '../helpers/cli.js';

const run = runCli;

let tmp: { dir: string; cleanup: () => void };
let configFile: string;

beforeAll(() => {
  tmp = tempDir();
  configFile = join(tmp.dir, 'config.json');
  const d = devicesConfig();
  writeFileSync(
    configFile,
    JSON.stringify({
      dataDir: join(tmp.dir, 'data'),
      devices: {
        simulate: true,
        reader: { path: d.reader.path },
        display: { path: d.display.path },
        scanner: { path: d.scanner.path },
      },
    }),
  );
});

afterAll(() => tmp.cleanup());

describe('terminal-agent devices', () => {
  it('ping handshakes each simulated device and prints model, firmware and round-trip time', async () => {
    const r = await run(['-c', configFile, 'devices', 'ping']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(simulated peripherals)');
    expect(r.stdout).toMatch(/reader\s+ok\s+SIM-READER-1\s+firmware 1\.4\.2\s+serial SIMR0001\s+rtt [\d.]+ ms/);
    expect(r.stdout).toMatch(/display\s+ok\s+SIM-DISPLAY-1\s+rtt [\d.]+ ms/);
    expect(r.stdout).toMatch(/scanner\s+ok\s+.*no handshake/);
  });

  it('ping --json gives the same facts as JSON', async () => {
    const r = await run(['-c', configFile, 'devices', 'ping', '--json']);
    const out = JSON.parse(r.stdout) as {
      simulated: boolean;
      devices: Array<{ device: string; ok: boolean; model?: string }>;
    };
    expect(out.simulated).toBe(true);
    expect(out.devices.map((d) => [d.device, d.ok])).toEqual([
      ['reader', true],
      ['display', true],
      ['scanner', true],
    ]);
  });

  it('ping --real on ports that do not exist fails with the remedy and exit code 1', async () => {
    const r = await run(['-c', configFile, 'devices', 'ping', '--real']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /reader\s+FAIL\s+the card reader port \/dev\/sim-reader-\S+ does not exist: check that the device is plugged in.*\[DEVICE_PORT_MISSING\]/,
    );
  });

  it('show-qr prints the code in the terminal and draws it on the display', async () => {
    const r = await run([
      '-c',
      configFile,
      'devices',
      'show-qr',
      'https://example.com/pay/42',
      '--caption',
      '4.20 EUR',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/[▀▄█]/);
    expect(r.stdout).toMatch(/shown on the simulated customer display \(\d+x\d+ modules\)/);
  });

  it('list prints the serial ports as JSON', async () => {
    const r = await run(['-c', configFile, 'devices', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });

  it('marks the ports that are configured devices, by path or by USB ids', async () => {
    const ports = new SimulatedPorts();
    const config = devicesConfig();
    ports.create(config.reader.path, { vendorId: '0483', productId: '5740' });
    ports.create(`${config.display.path}-other`, { vendorId: 'cafe', productId: 'beef', serialNumber: 'D1' });
    const listing = await listPorts(ports.binding, {
      ...config,
      display: { ...config.display, usb: { vendorId: 'CAFE', productId: 'BEEF' } },
    });
    expect(listing.map((p) => p.configuredAs)).toEqual([['reader'], ['display']]);
  });
});
