import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import type { MockBindingInterface } from '@serialport/binding-mock' with { 'resolution-mode': 'require' };
import type { SerialBinding, SerialPortInfo } from '../../devices/index.js';

/** USB identity a simulated port reports through list(). */
export interface SimulatedPortIdentity {
  vendorId?: string;
  productId?: string;
  serialNumber?: string;
  manufacturer?: string;
}

// The package's ESM entry ships no types; its CommonJS entry does, and is also the
// instance the serialport package itself uses.
const { MockBinding } = createRequire(import.meta.url)('@serialport/binding-mock') as {
  MockBinding: MockBindingInterface;
};

type MockPort = Awaited<ReturnType<MockBindingInterface['open']>>;

/** The device's end of a simulated port: what the agent writes comes out here, and vice versa. */
export class DeviceEnd extends Duplex {
  /** Set while the agent has the port open. */
  agentPort: MockPort | undefined;

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    const port = this.agentPort;
    // Bytes sent while nobody has the port open are lost, as on a real line.
    if (port?.isOpen) port.emitData(Buffer.from(chunk));
    cb();
  }
}

interface Slot {
  info: SerialPortInfo;
  device: DeviceEnd;
  plugged: boolean;
  open: SimulatedPortBinding | undefined;
}

/** The message bindings-cpp gives on Linux when a port vanished under a read. */
const UNPLUG_MESSAGE =
  'device reports readiness to read but returned no data (device disconnected or multiple access on port?)';

/** Wraps MockBinding's port: forwards the agent's writes to the device end and can be unplugged. */
class SimulatedPortBinding {
  private failRead: ((err: Error) => void) | undefined;
  /** Unplugged while open: this handle stays dead even after a replug, as a real device node does. */
  private dead = false;

  constructor(
    readonly inner: MockPort,
    private readonly slot: Slot,
  ) {}

  get openOptions(): MockPort['openOptions'] {
    return this.inner.openOptions;
  }

  get isOpen(): boolean {
    return this.inner.isOpen;
  }

  read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }> {
    return new Promise((resolve, reject) => {
      if (this.dead) {
        reject(new Error(UNPLUG_MESSAGE));
        return;
      }
      this.failRead = reject;
      this.inner.read(buffer, offset, length).then(resolve, reject);
    });
  }

  async write(buffer: Buffer): Promise<void> {
    if (this.dead) throw new Error('Input/output error, cannot write');
    await this.inner.write(buffer);
    this.slot.device.push(Buffer.from(buffer));
  }

  /** The device vanished: the pending read fails with a non-cancel error, so the stream reports `disconnected`. */
  unplug(): void {
    this.dead = true;
    this.failRead?.(new Error(UNPLUG_MESSAGE));
  }

  async close(): Promise<void> {
    if (this.slot.open === this) this.slot.open = undefined;
    if (this.slot.device.agentPort === this.inner) this.slot.device.agentPort = undefined;
    await this.inner.close();
  }

  update(options: { baudRate: number }): Promise<void> {
    return this.inner.update(options);
  }
  set(options: Parameters<MockPort['set']>[0]): Promise<void> {
    return this.inner.set(options);
  }
  get(): ReturnType<MockPort['get']> {
    return this.inner.get();
  }
  getBaudRate(): Promise<{ baudRate: number }> {
    return this.inner.getBaudRate();
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
  drain(): Promise<void> {
    return this.inner.drain();
  }
}

/**
 * Simulated serial ports over @serialport/binding-mock: each path created here has a
 * device end (a Duplex a simulated device talks through) and can be unplugged and
 * replugged. `binding` is what the agent opens the ports with. MockBinding keeps its
 * ports per process, so paths must be unique within one process.
 */
export class SimulatedPorts {
  private readonly slots = new Map<string, Slot>();
  readonly binding: SerialBinding;

  constructor() {
    this.binding = {
      list: async () => [...this.slots.values()].filter((s) => s.plugged).map((s) => ({ ...s.info })),
      open: (options) => this.open(options),
    };
  }

  /** Creates a port at `path` and returns the device's end of it. */
  create(path: string, identity: SimulatedPortIdentity = {}): DeviceEnd {
    MockBinding.createPort(path, {
      ...(identity.vendorId !== undefined ? { vendorId: identity.vendorId } : {}),
      ...(identity.productId !== undefined ? { productId: identity.productId } : {}),
      manufacturer: identity.manufacturer ?? 'terminal-agent simulator',
    });
    const device = new DeviceEnd();
    this.slots.set(path, {
      info: {
        path,
        manufacturer: identity.manufacturer ?? 'terminal-agent simulator',
        serialNumber: identity.serialNumber,
        pnpId: undefined,
        locationId: undefined,
        vendorId: identity.vendorId,
        productId: identity.productId,
      },
      device,
      plugged: true,
      open: undefined,
    });
    return device;
  }

  device(path: string): DeviceEnd {
    return this.slot(path).device;
  }

  /** The agent-side MockBinding port while open (tests may `emitData` on it). */
  agentPort(path: string): MockPort | undefined {
    return this.slot(path).open?.inner;
  }

  /** Pulls the cable: the agent's port closes with `disconnected`; opening fails until replug. */
  unplug(path: string): void {
    const slot = this.slot(path);
    slot.plugged = false;
    slot.device.emit('unplug');
    slot.open?.unplug();
  }

  replug(path: string): void {
    const slot = this.slot(path);
    slot.plugged = true;
    slot.device.emit('replug');
  }

  paths(): string[] {
    return [...this.slots.keys()];
  }

  private slot(path: string): Slot {
    const slot = this.slots.get(path);
    if (!slot) throw new Error(`no simulated port ${path}`);
    return slot;
  }

  private async open(
    options: { path: string; baudRate: number } & Record<string, unknown>,
  ): Promise<SimulatedPortBinding> {
    const slot = this.slots.get(options.path);
    // The texts bindings-cpp gives on Linux, so the agent's error mapping is exercised.
    if (!slot || !slot.plugged) throw new Error(`Error: No such file or directory, cannot open ${options.path}`);
    const inner = await MockBinding.open(options);
    const port = new SimulatedPortBinding(inner, slot);
    slot.open = port;
    slot.device.agentPort = inner;
    return port;
  }
}
