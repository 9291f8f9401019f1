import type { Duplex } from 'node:stream';
import { AgentError, ErrorCodes, qrCode } from '../core/index.js';
import type { CustomerDisplay, DeviceInfo, ShowQrOptions } from './api.js';
import type { DriverOptions, PingResult } from './framed-device.js';
import { FramedSession } from './framed-session.js';
import { displayHello, issuePaths } from './messages.js';
import { Mutex } from './mutex.js';
import { SupervisedDevice } from './supervised-device.js';
import { qrMatrix } from './qr-matrix.js';

/** At most 4 lines of text (docs/serial-protocol.md, "Customer display"). */
export const MAX_DISPLAY_LINES = 4;

/**
 * The customer display driver: `hello` on every (re)connect, `showQr` (the agent renders
 * the module matrix itself), `showText`, `clear`; each waits for the display's `done`.
 */
export class SerialCustomerDisplay extends SupervisedDevice<FramedSession> implements CustomerDisplay {
  private readonly mutex = new Mutex();
  private readonly requestTimeoutMs: number;
  private readonly link: DriverOptions['link'];

  constructor(opts: DriverOptions) {
    super(opts, { device: 'display', label: 'customer display', component: 'customer-display' });
    this.requestTimeoutMs = opts.config.requestTimeoutMs;
    this.link = opts.link;
  }

  protected createSession(stream: Duplex): FramedSession {
    return new FramedSession({
      stream,
      log: this.log,
      label: 'customer display',
      clock: this.clock,
      requestTimeoutMs: this.requestTimeoutMs,
      ...(this.link ? { link: this.link } : {}),
    });
  }

  async ping(): Promise<PingResult<DeviceInfo>> {
    return this.exclusive(async (session) => {
      const t0 = this.clock.mono();
      const info = await this.handshake(session);
      return { info, rttMs: this.clock.mono() - t0 };
    });
  }

  async showQr(codeValue: string, caption: string, opts: ShowQrOptions = {}): Promise<void> {
    const { size, packed } = qrMatrix(codeValue);
    let svg: string | undefined;
    try {
      svg = await qrCode().toString(codeValue, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    } catch {
      svg = undefined;
    }
    // The counter page shows the code whether or not the display is there.
    this.bus.publish('display.qr', {
      codeValue,
      caption,
      ...(opts.clientTransactionId !== undefined ? { clientTransactionId: opts.clientTransactionId } : {}),
      ...(opts.expireTime !== undefined ? { expireTime: opts.expireTime } : {}),
      ...(svg !== undefined ? { svg } : {}),
    });
    await this.exclusive(async (session) => {
      this.log.debug({ size, length: codeValue.length }, 'drawing QR code');
      await session.request({ type: 'showQr', size, modules: packed.toString('base64'), caption }, ['done']);
    });
  }

  async showText(lines: string[]): Promise<void> {
    if (lines.length > MAX_DISPLAY_LINES) {
      throw new AgentError(
        ErrorCodes.INPUT_INVALID,
        `the customer display shows at most ${MAX_DISPLAY_LINES} lines, got ${lines.length}`,
      );
    }
    await this.exclusive((session) => session.request({ type: 'showText', lines }, ['done']).then(() => undefined));
  }

  async clear(): Promise<void> {
    await this.exclusive((session) => session.request({ type: 'clear' }, ['done']).then(() => undefined));
  }

  private exclusive<T>(fn: (session: FramedSession) => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(() => {
      const session = this.supervisor.session;
      if (!session || session.isClosed) {
        throw new AgentError(
          ErrorCodes.DEVICE_DISCONNECTED,
          this.supervisor.status().enabled
            ? 'the customer display is not connected'
            : 'the customer display is disabled',
        );
      }
      return fn(session);
    });
  }

  protected async handshake(session: FramedSession): Promise<DeviceInfo> {
    const answer = await session.request({ type: 'hello' }, ['hello']);
    const parsed = displayHello.safeParse(answer);
    if (!parsed.success)
      throw new AgentError(
        ErrorCodes.DEVICE_ERROR,
        `the customer display answered hello without ${issuePaths(parsed.error).join(', ')}`,
      );
    const h = parsed.data;
    return {
      model: h.model,
      ...(h.width !== undefined ? { width: h.width } : {}),
      ...(h.height !== undefined ? { height: h.height } : {}),
    };
  }
}
