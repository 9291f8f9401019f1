import { afterEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { createPeripherals, type PeripheralSet } from '../../src/devices/peripherals.js';
import { portOpenError } from '../../src/devices/port-errors.js';
import { findPortByUsb } from '../../src/devices/port-finder.js';
import { EventBus } from '../../src/events/bus.js';
import { SimulatedPorts } from '../../src/sim/devices/simulated-ports.js';
import { devicesConfig, EventLog, simRig, type SimRig } from './sim-rig.js';
import { untilTrue } from '../helpers/wait.js';

let rig: SimRig | undefined;
const extra: PeripheralSet[] = [];
afterEach(async () => {
  for (const p of extra.splice(0)) await p.stop();
  await rig?.stop();
  rig = undefined;
});

const ctx = { label: 'card reader', path: '/dev/ttyACM0', configKey: 'devices.reader' };

describe('port open errors say what to do', () => {
  it('maps "no such file" to DEVICE_PORT_MISSING naming the config key', () => {
    const err = portOpenError(new Error('Error: No such file or directory, cannot open /dev/ttyACM0'), ctx);
    expect(err.code).toBe('DEVICE_PORT_MISSING');
    expect(err.message).toContain('devices.reader.path');
    expect(err.message).toContain('devices list');
  });

  it('maps "permission denied" to DEVICE_PORT_PERMISSION naming the dialout group', () => {
    const err = portOpenError(new Error('Error: Permission denied, cannot open /dev/ttyACM0'), ctx);
    expect(err.code).toBe('DEVICE_PORT_PERMISSION');
    expect(err.message).toContain('dialout');
  });

  it('maps a lock failure to DEVICE_PORT_BUSY naming how to find the holder', () => {
    const err = portOpenError(new Error('Error Resource temporarily unavailable Cannot lock port'), ctx);
    expect(err.code).toBe('DEVICE_PORT_BUSY');
    expect(err.message).toContain('fuser /dev/ttyACM0');
  });

  it('keeps anything else as DEVICE_ERROR with the original text', () => {
    const err = portOpenError(new Error('Invalid argument'), ctx);
    expect(err.code).toBe('DEVICE_ERROR');
    expect(err.message).toContain('Invalid argument');
  });
});

describe('finding a port by USB ids', () => {
  it('finds the path by vendor/product id (case-insensitive) and serial number', async () => {
    const ports = new SimulatedPorts();
    const id = Math.random().toString(36).slice(2, 8);
    ports.create(`/dev/usb-a-${id}`, { vendorId: '0483', productId: '5740', serialNumber: 'A1' });
    ports.create(`/dev/usb-b-${id}`, { vendorId: '0483', productId: '5740', serialNumber: 'B2' });
    const c = { label: 'card reader', configKey: 'devices.reader' };
    expect(await findPortByUsb(ports.binding, { vendorId: '0483', productId: '5740', serialNumber: 'B2' }, c)).toBe(
      `/dev/usb-b-${id}`,
    );
    await expect(findPortByUsb(ports.binding, { vendorId: '0483', productId: '5740' }, c)).rejects.toMatchObject({
      code: 'DEVICE_ERROR',
      message: expect.stringContaining('serialNumber'),
    });
    await expect(findPortByUsb(ports.binding, { vendorId: '1234', productId: 'ABCD' }, c)).rejects.toMatchObject({
      code: 'DEVICE_PORT_MISSING',
      message: expect.stringContaining('devices.reader.usb'),
    });
  });

  it('opens the reader found by USB ids', async () => {
    const base = devicesConfig();
    const config = devicesConfig({
      reader: { path: base.reader.path, usb: { vendorId: 'CAFE', productId: '0001', serialNumber: 'R-7' } },
    });
    rig = await simRig({ config });
    expect(rig.peripherals.reader.connected).toBe(true);
    expect(rig.peripherals.status().reader.path).toBe(base.reader.path);
  });
});

describe('port supervisor', () => {
  it('reports a missing port with the remedy and connects once it appears', async () => {
    const config = devicesConfig();
    const bus = new EventBus();
    const events = new EventLog(bus);
    const ports = new SimulatedPorts();
    const p = createPeripherals({
      config: {
        ...config,
        display: { ...config.display, enabled: false },
        scanner: { ...config.scanner, enabled: false },
      },
      bus,
      log: silentLogger(),
      binding: ports.binding,
    });
    extra.push(p);
    const first = await p.reader.start();
    expect(first.connected).toBe(false);
    if (first.connected) return;
    expect(first.error).toBeInstanceOf(AgentError);
    expect(first.error.code).toBe('DEVICE_PORT_MISSING');
    expect(p.status().reader).toMatchObject({
      state: 'reconnecting',
      reason: 'port_missing',
      errorCode: 'DEVICE_PORT_MISSING',
    });
    expect(events.of('device.status')[0]).toMatchObject({
      device: 'reader',
      state: 'reconnecting',
      reason: 'port_missing',
      message: expect.stringContaining('plugged in'),
    });
    // The reader gets plugged in.
    const { SimulatedReader } = await import('../../src/sim/devices/simulated-reader.js');
    const sim = new SimulatedReader(ports.create(config.reader.path), { log: silentLogger() });
    await events.waitFor('device.status', (d) => d.state === 'connected');
    expect(p.reader.connected).toBe(true);
    sim.close();
  });

  it('reconnects after unplug, re-runs hello and reports each step', async () => {
    rig = await simRig();
    const { sim, peripherals, events, config } = rig;
    const mark = events.events.length;
    sim.ports.unplug(config.reader.path);
    await events.waitFor('device.status', (d) => d.device === 'reader' && d.state === 'disconnected', mark);
    expect(peripherals.reader.connected).toBe(false);
    await events.waitFor(
      'device.status',
      (d) => d.device === 'reader' && d.state === 'reconnecting' && d.reason === 'port_missing',
      mark,
    );
    sim.ports.replug(config.reader.path);
    await events.waitFor('device.status', (d) => d.device === 'reader' && d.state === 'connected', mark);
    const statuses = events
      .of('device.status')
      .slice(0)
      .filter((d) => d.device === 'reader');
    expect(statuses.map((d) => `${d.state}/${d.reason}`)).toEqual([
      'connected/opened',
      'disconnected/unplugged',
      'reconnecting/port_missing',
      'connected/reconnected',
    ]);
    expect(sim.reader.receivedOfType('hello')).toHaveLength(2);
    // And it works again.
    sim.reader.nextCard({ delayMs: 0 });
    const result = await peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(result.outcome).toBe('ok');
  });

  it('detects unplug through the MockBinding port closing with disconnected', async () => {
    rig = await simRig();
    const { sim, events, config } = rig;
    const mark = events.events.length;
    const port = sim.ports.agentPort(config.display.path);
    expect(port?.isOpen).toBe(true);
    // Bytes sent by the device arrive through the mock port like real data.
    port?.emitData(Buffer.from([0x00, 0x01]));
    sim.ports.unplug(config.display.path);
    sim.ports.replug(config.display.path);
    await events.waitFor('device.status', (d) => d.device === 'display' && d.state === 'connected', mark);
    expect(events.of('device.status').slice(-2)).toMatchObject([
      { device: 'display', state: 'disconnected', reason: 'unplugged' },
      { device: 'display', state: 'connected', reason: 'reconnected', model: 'SIM-DISPLAY-1' },
    ]);
  });

  it('ends a card request pending at unplug with outcome error instead of hanging', async () => {
    rig = await simRig();
    rig.sim.reader.nextCard({ delayMs: 60_000 });
    const pending = rig.peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    const simReader = rig.sim.reader;
    await untilTrue(
      'the reader asked to start the payment',
      () => simReader.receivedOfType('startPayment').length > 0,
      { everyMs: 5 },
    );
    rig.sim.ports.unplug(rig.config.reader.path);
    expect(await pending).toEqual({ outcome: 'error', reason: 'the card reader disconnected' });
  });

  it('reports a port held by another process as busy', async () => {
    rig = await simRig();
    const bus = new EventBus();
    const second = createPeripherals({
      config: rig.config,
      bus,
      log: silentLogger(),
      binding: rig.sim.binding,
      reconnect: false,
    });
    extra.push(second);
    const attempt = await second.reader.start();
    expect(attempt.connected).toBe(false);
    if (attempt.connected) return;
    expect(attempt.error.code).toBe('DEVICE_PORT_BUSY');
    expect(second.status().reader.reason).toBe('port_busy');
  });

  it('keeps retrying a device that does not answer hello and connects once it does', async () => {
    const config = devicesConfig();
    rig = await simRig({ config, start: false });
    rig.sim.reader.mute = true;
    const attempt = await rig.peripherals.reader.start();
    expect(attempt.connected).toBe(false);
    expect(rig.peripherals.status().reader).toMatchObject({ state: 'reconnecting', reason: 'handshake_failed' });
    rig.sim.reader.mute = false;
    await rig.events.waitFor('device.status', (d) => d.device === 'reader' && d.state === 'connected');
    expect(rig.peripherals.reader.info?.model).toBe('SIM-READER-1');
  });

  it('reopens the port when the device stops acknowledging (LINK_NO_ACK)', async () => {
    rig = await simRig();
    const mark = rig.events.events.length;
    // The reader's firmware hangs: nothing is acknowledged any more.
    rig.sim.reader.close();
    const result = await rig.peripherals.reader.readCard({
      amount: 1,
      currency: 'EUR',
      entryModes: ['ContactlessChip'],
      offlineAllowed: false,
    });
    expect(result).toEqual({ outcome: 'error', reason: 'the card reader did not acknowledge the payment request' });
    await rig.events.waitFor(
      'device.status',
      (d) => d.device === 'reader' && d.state === 'disconnected' && d.reason === 'no_ack',
      mark,
    );
    await rig.events.waitFor(
      'device.status',
      (d) => d.device === 'reader' && d.state === 'reconnecting' && d.reason === 'handshake_failed',
      mark,
    );
    expect(rig.peripherals.reader.connected).toBe(false);
  });

  it('reports stopped, and a disabled device is never opened', async () => {
    rig = await simRig({ config: devicesConfig({ scanner: { enabled: false } }) });
    expect(rig.peripherals.status().scanner).toMatchObject({ enabled: false, state: 'disabled' });
    await rig.peripherals.stop();
    expect(rig.peripherals.status().reader.state).toBe('stopped');
    expect(
      rig.events
        .of('device.status')
        .filter((d) => d.reason === 'stopped')
        .map((d) => d.device)
        .sort(),
    ).toEqual(['display', 'reader']);
    expect(rig.sim.ports.agentPort(rig.config.reader.path)).toBeUndefined();
  });
});
