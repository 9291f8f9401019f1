import { existsSync } from 'node:fs';
import type { Config, SerialPortConfig } from '../../config/index.js';
import { describeError, isAgentError, ErrorCodes } from '../../core/index.js';
import { EventBus, type DeviceName } from '../../events/index.js';
import {
  createPeripherals,
  describeUsb,
  matchesUsb,
  systemBinding,
  type SerialBinding,
  type SerialPortInfo,
} from '../../devices/index.js';
import type { DeviceStatusView } from '../../ui/index.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';
import { agentDevices } from './agent.js';

const DEVICES: ReadonlyArray<{ name: DeviceName; title: string }> = [
  { name: 'reader', title: 'card reader' },
  { name: 'display', title: 'customer display' },
  { name: 'scanner', title: 'barcode scanner' },
];

function located(cfg: SerialPortConfig, ports: SerialPortInfo[]): { path: string | undefined; how: string } {
  if (cfg.usb) {
    const found = ports.filter((p) => matchesUsb(p, cfg.usb as NonNullable<SerialPortConfig['usb']>));
    return { path: found[0]?.path, how: `USB ${describeUsb(cfg.usb)}` };
  }
  // A pseudo-terminal or a by-id symlink is not always in SerialPort.list(); the path existing is enough.
  const present = ports.some((p) => p.path === cfg.path) || existsSync(cfg.path);
  return { path: present ? cfg.path : undefined, how: cfg.path };
}

function fromAgent(view: DeviceStatusView | undefined, title: string): Omit<Outcome, 'id' | 'title'> {
  if (view === undefined) return { status: 'warn', finding: 'the running agent does not report this device' };
  const facts = { ...view };
  if (view.state === 'disabled') return { status: 'skip', finding: 'disabled in configuration', facts };
  if (view.state === 'connected') {
    const model = [view.model, view.firmware ? `firmware ${view.firmware}` : undefined].filter(Boolean).join(', ');
    return { status: 'ok', finding: `connected to the running agent${model ? `: ${model}` : ''}`, facts };
  }
  return {
    status: 'fail',
    finding: `${view.state} in the running agent${view.reason ? ` (${view.reason})` : ''}`,
    remedy: `check the ${title}'s cable and power; the agent reconnects by itself once the port is back`,
    facts,
  };
}

/**
 * Check 7: each configured device's port is present (by path or USB ids); then, when the
 * agent is not running, a `hello` handshake with model, firmware and round trip. A
 * running agent holds the ports, so its GET /api/v1/devices answers instead.
 */
export async function checkSerial(state: DiagState): Promise<Outcome[]> {
  const config = state.config;
  if (config === undefined)
    return [{ id: 'serial', title: 'serial ports', status: 'skip', finding: 'needs the configuration (see config)' }];
  const devices = config.devices;
  const running = state.agent.running;
  if (devices.simulate && !running) {
    return [
      {
        id: 'serial',
        title: 'serial ports',
        status: 'skip',
        finding: 'devices.simulate is on: the agent simulates the peripherals itself, no serial port to check',
        facts: { simulate: true },
      },
    ];
  }
  let views: DeviceStatusView[] | undefined;
  let viewsError: string | undefined;
  if (running) {
    try {
      views = await agentDevices(state);
    } catch (err) {
      viewsError = describeError(err);
    }
  }
  if (devices.simulate) {
    return DEVICES.map(({ name, title }) => ({
      id: `serial.${name}`,
      title,
      ...(views
        ? fromAgent(
            views.find((v) => v.device === name),
            title,
          )
        : {
            status: 'warn' as const,
            finding: `simulated; the running agent's devices could not be read: ${viewsError ?? 'unknown'}`,
          }),
    }));
  }
  const binding = state.binding ?? systemBinding();
  let ports: SerialPortInfo[];
  try {
    ports = await binding.list();
    state.collected.ports = ports;
  } catch (err) {
    state.collected.ports = { error: describeError(err) };
    return [
      {
        id: 'serial',
        title: 'serial ports',
        status: 'fail',
        finding: `the serial ports cannot be listed: ${describeError(err)}`,
        remedy: 'check that the serialport binding is installed for this platform',
      },
    ];
  }
  const out: Outcome[] = [];
  const present: DeviceName[] = [];
  for (const { name, title } of DEVICES) {
    const cfg = devices[name];
    const id = `serial.${name}`;
    if (!cfg.enabled) {
      out.push({ id, title, status: 'skip', finding: 'disabled in configuration' });
      continue;
    }
    const where = located(cfg, ports);
    if (where.path === undefined) {
      const attached =
        ports.map((p) => `${p.path}${p.vendorId ? ` ${p.vendorId}:${p.productId ?? '?'}` : ''}`).join(', ') || 'none';
      out.push({
        id,
        title,
        status: 'fail',
        finding: `no port ${where.how} (attached: ${attached})`,
        remedy: `check the ${title}'s cable and power, or devices.${name}.${cfg.usb ? 'usb' : 'path'}`,
        facts: { configured: where.how, attached: ports.map((p) => p.path) },
      });
      continue;
    }
    present.push(name);
    if (running) {
      out.push({
        id,
        title,
        ...(views
          ? fromAgent(
              views.find((v) => v.device === name),
              title,
            )
          : {
              status: 'warn',
              finding: `port ${where.path} present; the running agent's device status could not be read: ${viewsError ?? 'unknown'}`,
            }),
      });
    } else {
      out.push({ id, title, status: 'ok', finding: `port ${where.path} present`, facts: { path: where.path } });
    }
  }
  if (running || present.length === 0) return out;
  return handshake(state, config, binding, present, out);
}

/** Opens the present ports once (no reconnect loop), runs `hello` on reader and display, closes them. */
async function handshake(
  state: DiagState,
  config: Config,
  binding: SerialBinding,
  present: DeviceName[],
  out: Outcome[],
): Promise<Outcome[]> {
  const only = { ...config.devices };
  for (const { name } of DEVICES) if (!present.includes(name)) only[name] = { ...only[name], enabled: false };
  const peripherals = createPeripherals({
    config: only,
    bus: new EventBus(),
    log: state.log,
    binding,
    reconnect: false,
  });
  try {
    await peripherals.start();
    const status = peripherals.status();
    for (const name of present) {
      const i = out.findIndex((o) => o.id === `serial.${name}`);
      const title = DEVICES.find((d) => d.name === name)?.title ?? name;
      const st = status[name];
      const path = st.path;
      if (st.state !== 'connected') {
        out[i] = {
          id: `serial.${name}`,
          title,
          status: 'fail',
          finding: st.message ?? `the ${title} on ${path} did not connect`,
          remedy:
            st.errorCode === ErrorCodes.DEVICE_PORT_BUSY
              ? 'another program holds the port: stop it (is the agent running with another --api-port?)'
              : `check that the ${title} is on ${path}, powered and of the expected kind`,
          facts: { path, code: st.errorCode },
        };
        continue;
      }
      if (name === 'scanner') {
        out[i] = {
          id: 'serial.scanner',
          title,
          status: 'ok',
          finding: `port ${path} opens (the scanner protocol has no handshake)`,
          facts: { path },
        };
        continue;
      }
      const driver = name === 'reader' ? peripherals.reader : peripherals.display;
      try {
        const { info, rttMs } = await driver.ping();
        const rtt = Math.round(rttMs * 10) / 10;
        out[i] = {
          id: `serial.${name}`,
          title,
          status: 'ok',
          finding: `${path}: ${info.model}${info.firmware ? `, firmware ${info.firmware}` : ''}${info.serialNumber ? `, serial ${info.serialNumber}` : ''}; hello round trip ${rtt} ms`,
          facts: {
            path,
            model: info.model,
            firmware: info.firmware ?? null,
            serialNumber: info.serialNumber ?? null,
            rttMs: rtt,
          },
        };
      } catch (err) {
        out[i] = {
          id: `serial.${name}`,
          title,
          status: 'fail',
          finding: `${path}: hello not answered: ${describeError(err)}`,
          remedy: `check that the ${title} is powered and of the expected kind`,
          facts: { path, code: isAgentError(err) ? err.code : undefined },
        };
      }
    }
    return out;
  } finally {
    await peripherals.stop();
  }
}
