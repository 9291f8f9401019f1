import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { AgentError, ErrorCodes, systemClock, type Logger, type Clock } from '../core/index.js';
import { Link, type LinkOptions } from './link/link.js';
import type { LinkPayload } from './link/frame.js';
import { deviceError, deviceMessage, type DeviceMessage } from './messages.js';
import { Waitress, type Waiter } from './waitress.js';

export interface FramedSessionOptions {
  stream: Duplex;
  log: Logger;
  /** 'card reader', 'customer display': used in error messages. */
  label: string;
  clock?: Clock;
  requestTimeoutMs: number;
  link?: Partial<Omit<LinkOptions, 'stream' | 'log' | 'clock'>>;
}

/**
 * One open connection to a framed device: the link plus request/answer matching by `id`
 * (docs/serial-protocol.md, "Messages"). Created by the port supervisor for every (re)open.
 */
export class FramedSession {
  readonly link: Link;
  readonly label: string;
  readonly requestTimeoutMs: number;
  private readonly waitress: Waitress<DeviceMessage>;
  private readonly log: Logger;
  private readonly listeners = new Set<(m: DeviceMessage) => void>();
  private readonly idPrefix = randomBytes(3).toString('hex');
  private nextId = 1;
  private closed = false;

  constructor(opts: FramedSessionOptions) {
    const clock = opts.clock ?? systemClock();
    this.label = opts.label;
    this.log = opts.log;
    this.requestTimeoutMs = opts.requestTimeoutMs;
    this.waitress = new Waitress(clock);
    this.link = new Link({ ...opts.link, stream: opts.stream, log: opts.log, clock });
    this.link.onMessage((payload) => this.onPayload(payload));
  }

  newId(): string {
    return `${this.idPrefix}-${this.nextId++}`;
  }

  /** Waits for a message with this id and one of `types`; a device `error` with the id rejects. */
  expect(id: string, types: readonly string[], timeoutMs: number, what: string): Waiter<DeviceMessage> {
    const waiter = this.waitress.waitFor(
      (m) => m.id === id && (types.includes(m.type) || m.type === 'error'),
      timeoutMs,
      () =>
        new AgentError(ErrorCodes.DEVICE_TIMEOUT, `the ${this.label} did not answer ${what} within ${timeoutMs} ms`, {
          details: { id, timeoutMs },
        }),
    );
    const promise = waiter.promise.then((m) => {
      if (m.type !== 'error') return m;
      const parsed = deviceError.safeParse(m);
      const code = parsed.success ? parsed.data.code : 'unknown';
      throw new AgentError(ErrorCodes.DEVICE_ERROR, `the ${this.label} refused ${what} (${code})`, {
        details: { deviceCode: code },
      });
    });
    // The caller may stop listening (cancel) before anyone awaits the promise.
    promise.catch(() => {});
    return { promise, cancel: waiter.cancel };
  }

  /** Sends a request and resolves with its answer. */
  async request(
    payload: LinkPayload & { type: string; id?: string },
    answer: readonly string[],
    timeoutMs = this.requestTimeoutMs,
  ): Promise<DeviceMessage> {
    const id = payload.id ?? this.newId();
    const waiter = this.expect(id, answer, timeoutMs, payload.type);
    try {
      await this.link.send({ ...payload, id });
    } catch (err) {
      waiter.cancel(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    return waiter.promise;
  }

  /** Sends a message that has no answer; resolves on the link ACK. */
  send(payload: LinkPayload): Promise<void> {
    return this.link.send(payload);
  }

  /** Every message from the device (after request matching), e.g. progress events. */
  onMessage(listener: (m: DeviceMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onFailure(listener: (err: AgentError) => void): () => void {
    return this.link.onFailure(listener);
  }

  /** The device gave up one of its messages: every copy arrived damaged (see Link.onPeerGaveUp). */
  onPeerGaveUp(listener: (err: AgentError) => void): () => void {
    return this.link.onPeerGaveUp(listener);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.link.close(reason);
    this.waitress.rejectAll(
      new AgentError(ErrorCodes.DEVICE_DISCONNECTED, `the ${this.label} disconnected (${reason})`),
    );
  }

  private onPayload(payload: LinkPayload): void {
    const parsed = deviceMessage.safeParse(payload);
    if (!parsed.success) {
      this.log.warn(
        { fields: parsed.error.issues.map((i) => i.path.join('.')) },
        'device message without type ignored',
      );
      return;
    }
    const message = parsed.data;
    for (const l of [...this.listeners]) {
      try {
        l(message);
      } catch (err) {
        this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'device message listener failed');
      }
    }
    if (!this.waitress.deliver(message)) {
      this.log.debug({ type: message.type, id: message.id }, 'unsolicited device message ignored');
    }
  }
}
