import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/logger.js';
import { runDiagnostics, type CheckResult, type DiagReport } from '../../src/diag/index.js';
import { SIM_READER_INFO, startSimulatedPeripherals, type SimulatedPeripherals } from '../../src/sim/devices/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort } from './diag-setup.js';

const tag = randomBytes(4).toString('hex');
const paths = { reader: `/dev/ttyDIAG-R-${tag}`, display: `/dev/ttyDIAG-D-${tag}`, scanner: `/dev/ttyDIAG-S-${tag}` };
let sim: SimulatedPeripherals;
let tmp: { dir: string; cleanup: () => void };
let apiPort: number;

function config(devices: Record<string, unknown>) {
  return loadConfig({
    cwd: process.cwd(),
    env: {},
    flags: {
      dataDir: tmp.dir,
      api: { port: apiPort },
      sim: { apiPort: 1, mtlsPort: 1 },
      devices: { simulate: false, ...devices },
    },
  });
}

function check(r: DiagReport, id: string): CheckResult {
  const c = r.checks.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no check ${id}`);
  return c;
}

beforeAll(async () => {
  tmp = tempDir('terminal-agent-diag-serial-');
  apiPort = await closedPort();
  const loaded = config({
    reader: { path: paths.reader },
    display: { path: paths.display },
    scanner: { path: paths.scanner },
  });
  sim = await startSimulatedPeripherals({ config: loaded.config.devices, log: silentLogger() });
});
afterAll(async () => {
  await sim?.stop();
  tmp?.cleanup();
});

describe('diag serial ports when the agent is not running', () => {
  it('finds each port, runs hello on reader and display with model, firmware and round trip, and closes the ports again', async () => {
    const loaded = config({
      reader: { path: paths.reader },
      display: { path: paths.display },
      scanner: { path: paths.scanner },
    });
    const r = (await runDiagnostics({ loadConfig: () => loaded, binding: sim.binding, checkTimeoutMs: 8_000 })).report;
    const reader = check(r, 'serial.reader');
    expect(reader.status).toBe('ok');
    expect(reader.finding).toContain(SIM_READER_INFO.model);
    expect(reader.facts).toMatchObject({ path: paths.reader, model: SIM_READER_INFO.model, rttMs: expect.any(Number) });
    expect(check(r, 'serial.display')).toMatchObject({
      status: 'ok',
      facts: { path: paths.display, model: expect.any(String) },
    });
    expect(check(r, 'serial.scanner')).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining('no handshake'),
    });
    // Closed again: a second run opens them once more.
    const again = (await runDiagnostics({ loadConfig: () => loaded, binding: sim.binding, checkTimeoutMs: 8_000 }))
      .report;
    expect(check(again, 'serial.reader').status).toBe('ok');
  });

  it('fails a device whose port is missing, listing the attached ports, and finds a port by USB ids', async () => {
    const loaded = config({
      reader: { usb: { vendorId: '1d50', productId: '6101' } },
      display: { enabled: false },
      scanner: { path: `/dev/ttyDIAG-missing-${tag}` },
    });
    const r = (await runDiagnostics({ loadConfig: () => loaded, binding: sim.binding, checkTimeoutMs: 8_000 })).report;
    expect(check(r, 'serial.scanner')).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(paths.reader),
      remedy: expect.stringContaining('devices.scanner.path'),
    });
    expect(check(r, 'serial.display').status).toBe('skip');
    const reader = check(r, 'serial.reader');
    expect(reader.status, `${reader.finding} ${JSON.stringify(reader.facts)}`).toBe('ok');
    expect(r.ok).toBe(false);
  });
});
