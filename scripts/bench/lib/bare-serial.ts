import { randomBytes } from 'node:crypto';
import { closeSerialPort, openSerialPort, type OpenPort } from '../../../src/devices/index.js';
import { encodeAck, encodeFrame } from '../../../src/devices/link/index.js';
import { SimulatedPorts, type DeviceEnd } from '../../../src/sim/index.js';

let portCounter = 0;

/**
 * The serial floor of a card sale (docs/performance.md, "Quality targets"): the two frames a sale
 * cannot do without, exchanged bare over the same binding the simulated reader uses
 * (@serialport/binding-mock through SimulatedPorts, opened with the agent's
 * openSerialPort): the agent's startPayment, the reader's ACK, the reader's cardResult,
 * the agent's ACK. Bytes are counted, not parsed: the frames are encoded once, up front.
 */
export class BareSerialExchange {
  private readonly ports = new SimulatedPorts();
  private readonly path = `/dev/bench-floor-${process.pid}-${++portCounter}`;
  private readonly device: DeviceEnd;
  private port: OpenPort | undefined;
  private readonly startPayment: Buffer;
  private readonly cardResult: Buffer;
  private readonly ack = encodeAck(1);

  constructor() {
    this.device = this.ports.create(this.path);
    this.startPayment = encodeFrame(1, {
      type: 'startPayment',
      id: 'r-000001',
      amount: 1234,
      currency: 'EUR',
      entryModes: ['ContactChip', 'ContactlessChip', 'Magstripe'],
      offlineAllowed: false,
    });
    this.cardResult = encodeFrame(1, {
      type: 'cardResult',
      id: 'r-000001',
      outcome: 'ok',
      entryMode: 'ContactlessChip',
      card: {
        maskedPan: '476173******0010',
        scheme: 'visa',
        expiry: '2812',
        encryptedData: randomBytes(32).toString('hex').toUpperCase(),
        ksn: 'FFFF9876543210E00001',
      },
    });
  }

  async open(): Promise<void> {
    this.port = await openSerialPort({ path: this.path, baudRate: 115_200, binding: this.ports.binding });
  }

  /** One exchange; resolves when the reader has the agent's ACK of its cardResult. */
  once(): Promise<void> {
    const port = this.port;
    if (port === undefined) throw new Error('open() first');
    return new Promise((resolve) => {
      let atDevice = 0;
      let atAgent = 0;
      const expectDevice = this.startPayment.length;
      const expectAgent = this.ack.length + this.cardResult.length;
      const onDevice = (chunk: Buffer): void => {
        atDevice += chunk.length;
        if (atDevice === expectDevice) {
          // The reader: ACK, then its cardResult.
          this.device.write(this.ack);
          this.device.write(this.cardResult);
        } else if (atDevice >= expectDevice + this.ack.length) {
          this.device.off('data', onDevice);
          resolve();
        }
      };
      const onAgent = (chunk: Buffer): void => {
        atAgent += chunk.length;
        if (atAgent >= expectAgent) {
          port.off('data', onAgent);
          port.write(this.ack);
        }
      };
      this.device.on('data', onDevice);
      port.on('data', onAgent);
      port.write(this.startPayment);
    });
  }

  async close(): Promise<void> {
    if (this.port !== undefined) await closeSerialPort(this.port);
  }
}
