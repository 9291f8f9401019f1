import type { Command } from 'commander';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../core/index.js';
import type { DeviceName } from '../../events/index.js';
import type { PeripheralSet, SerialBinding, SerialPortInfo } from '../../devices/index.js';
import type { SimulatedPeripherals } from '../../sim/index.js';
import { configFor } from '../options.js';

type DevicesConfig = Config['devices'];
const names: DeviceName[] = ['reader', 'display', 'scanner'];

interface Session {
  peripherals: PeripheralSet;
  simulated: SimulatedPeripherals | undefined;
  close(): Promise<void>;
}

/** The CLI's log goes to stderr, errors only unless asked for debug/trace: stdout is the answer. */
async function cliLogger(config: Config): Promise<Logger> {
  const { createLogger } = await import('../../core/index.js');
  const level = config.log.level === 'debug' || config.log.level === 'trace' ? config.log.level : 'error';
  return createLogger({ level, destination: process.stderr });
}

function useSimulated(config: DevicesConfig, opts: { simulated?: boolean; real?: boolean }): boolean {
  if (opts.real) return false;
  if (opts.simulated) return true;
  return config.simulate;
}

/**
 * Opens the configured devices once (no reconnect loop). A running agent holds the real
 * ports, so here they would report busy: that message names the remedy.
 */
async function openDevices(config: Config, simulate: boolean, only?: DeviceName[]): Promise<Session> {
  const log = await cliLogger(config);
  const { EventBus } = await import('../../events/index.js');
  const { createPeripherals } = await import('../../devices/index.js');
  const { startSimulatedPeripherals } = await import('../../sim/index.js');
  const devices: DevicesConfig = { ...config.devices };
  if (only) for (const n of names) if (!only.includes(n)) devices[n] = { ...devices[n], enabled: false };
  const simulated = simulate ? await startSimulatedPeripherals({ config: devices, log }) : undefined;
  const peripherals = createPeripherals({
    config: devices,
    bus: new EventBus(),
    log,
    reconnect: false,
    ...(simulated ? { binding: simulated.binding } : {}),
  });
  await peripherals.start();
  return {
    peripherals,
    simulated,
    async close() {
      await peripherals.stop();
      await simulated?.stop();
    },
  };
}

export interface PortListing extends SerialPortInfo {
  /** Configured devices this port is, by path or USB ids. */
  configuredAs: DeviceName[];
}

export async function listPorts(binding: SerialBinding, config: DevicesConfig): Promise<PortListing[]> {
  const ports = await binding.list();
  const { matchesUsb } = await import('../../devices/index.js');
  return ports.map((p) => ({
    ...p,
    configuredAs: names.filter((n) => {
      const c = config[n];
      return c.enabled && (c.usb ? matchesUsb(p, c.usb) : c.path === p.path);
    }),
  }));
}

function portLine(p: PortListing): string {
  const usb = p.vendorId ? `${p.vendorId}:${p.productId ?? '????'}` : '-';
  const parts = [p.path.padEnd(16), usb.padEnd(10), (p.serialNumber ?? '-').padEnd(16), p.manufacturer ?? ''];
  return `${parts.join(' ')}${p.configuredAs.length ? `  <- ${p.configuredAs.join(', ')}` : ''}`.trimEnd();
}

export interface PingLine {
  device: DeviceName;
  ok: boolean;
  path?: string;
  model?: string;
  firmware?: string;
  serialNumber?: string;
  rttMs?: number;
  note?: string;
  error?: string;
  code?: string;
}

export async function pingAll(peripherals: PeripheralSet): Promise<PingLine[]> {
  const { isAgentError } = await import('../../core/index.js');
  const lines: PingLine[] = [];
  for (const device of names) {
    const status = peripherals.status()[device];
    const path = status.path;
    if (!status.enabled) {
      lines.push({ device, ok: true, note: 'disabled in configuration' });
      continue;
    }
    if (status.state !== 'connected') {
      lines.push({
        device,
        ok: false,
        ...(path ? { path } : {}),
        error: status.message ?? 'not connected',
        ...(status.errorCode ? { code: status.errorCode } : {}),
      });
      continue;
    }
    if (device === 'scanner') {
      lines.push({
        device,
        ok: true,
        ...(path ? { path } : {}),
        note: 'port open (the scanner protocol has no handshake)',
      });
      continue;
    }
    try {
      const driver = device === 'reader' ? peripherals.reader : peripherals.display;
      const { info, rttMs } = await driver.ping();
      lines.push({
        device,
        ok: true,
        ...(path ? { path } : {}),
        model: info.model,
        ...(info.firmware ? { firmware: info.firmware } : {}),
        ...(info.serialNumber ? { serialNumber: info.serialNumber } : {}),
        rttMs: Math.round(rttMs * 10) / 10,
      });
    } catch (err) {
      lines.push({
        device,
        ok: false,
        ...(path ? { path } : {}),
        error: err instanceof Error ? err.message : String(err),
        ...(isAgentError(err) ? { code: err.code } : {}),
      });
    }
  }
  return lines;
}

function pingText(l: PingLine): string {
  const head = `${l.device.padEnd(8)}`;
  if (!l.ok) return `${head} FAIL  ${l.error ?? ''}${l.code ? ` [${l.code}]` : ''}`;
  if (l.note && !l.model) return `${head} ok    ${l.path ? `${l.path}  ` : ''}${l.note}`;
  const facts = [
    l.model,
    l.firmware ? `firmware ${l.firmware}` : undefined,
    l.serialNumber ? `serial ${l.serialNumber}` : undefined,
    `rtt ${l.rttMs} ms`,
    l.path,
  ].filter(Boolean);
  return `${head} ok    ${facts.join('  ')}`;
}

export function register(program: Command): void {
  const devices = program
    .command('devices')
    .description('serial peripherals: list ports, ping the configured devices, draw a QR code');

  devices
    .command('list')
    .description("list the machine's serial ports with their USB ids")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { systemBinding } = await import('../../devices/index.js');
      const ports = await listPorts(systemBinding(), config.devices);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(ports, null, 2)}\n`);
        return;
      }
      if (ports.length === 0) process.stdout.write('no serial ports found\n');
      else {
        process.stdout.write(
          `${['PATH'.padEnd(16), 'USB ID'.padEnd(10), 'SERIAL'.padEnd(16), 'MANUFACTURER'].join(' ')}\n`,
        );
        for (const p of ports) process.stdout.write(`${portLine(p)}\n`);
      }
      if (config.devices.simulate)
        process.stdout.write(
          'note: devices.simulate is on, so the agent drives simulated peripherals, not these ports\n',
        );
    });

  devices
    .command('ping')
    .description('open each configured device, run the hello handshake, print model, firmware and round-trip time')
    .option('--simulated', 'ping simulated peripherals (default when devices.simulate is on)')
    .option('--real', 'ping the real ports even when devices.simulate is on')
    .action(async (opts: { simulated?: boolean; real?: boolean; json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const simulate = useSimulated(config.devices, opts);
      const session = await openDevices(config, simulate);
      try {
        const lines = await pingAll(session.peripherals);
        if (opts.json) process.stdout.write(`${JSON.stringify({ simulated: simulate, devices: lines }, null, 2)}\n`);
        else {
          if (simulate) process.stdout.write('(simulated peripherals)\n');
          for (const l of lines) process.stdout.write(`${pingText(l)}\n`);
        }
        if (lines.some((l) => !l.ok)) process.exitCode = 1;
      } finally {
        await session.close();
      }
    });

  devices
    .command('show-qr')
    .description('draw a QR code on the customer display and print it in the terminal')
    .argument('<text>', 'the text to encode')
    .option('--caption <text>', 'caption under the code', '')
    .option('--simulated', 'use a simulated display (default when devices.simulate is on)')
    .option('--real', 'use the real display even when devices.simulate is on')
    .action(
      async (
        text: string,
        opts: { caption: string; simulated?: boolean; real?: boolean; json?: boolean },
        cmd: Command,
      ) => {
        const { config } = await configFor(cmd);
        const { toString: qrToString } = await import('qrcode');
        if (!opts.json)
          process.stdout.write(await qrToString(text, { type: 'terminal', errorCorrectionLevel: 'M', small: true }));
        const simulate = useSimulated(config.devices, opts);
        const session = await openDevices(config, simulate, ['display']);
        try {
          // A failure reaches main(): one line with its code (JSON under --json), exit 1.
          await session.peripherals.display.showQr(text, opts.caption);
          const qr = session.simulated?.display.lastQr;
          if (opts.json)
            process.stdout.write(
              `${JSON.stringify({ shown: true, simulated: simulate, ...(qr ? { modules: qr.size } : {}) }, null, 2)}\n`,
            );
          else
            process.stdout.write(
              `shown on the ${simulate ? 'simulated ' : ''}customer display${qr ? ` (${qr.size}x${qr.size} modules)` : ''}\n`,
            );
        } finally {
          await session.close();
        }
      },
    );
}
