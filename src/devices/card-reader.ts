import type { Duplex } from 'node:stream';
import { AgentError, isAgentError, ErrorCodes, type TimerHandle } from '../core/index.js';
import type { CardReader, CardResult, DeviceInfo, ReadCardRequest, ReaderFault } from './api.js';
import type { DriverOptions, PingResult } from './framed-device.js';
import { FramedSession } from './framed-session.js';
import {
  cardResult,
  cardResultOk,
  issuePaths,
  readerEvent,
  readerHello,
  readerSteps,
  type DeviceMessage,
  type ReaderStep,
} from './messages.js';
import { Mutex } from './mutex.js';
import { SupervisedDevice } from './supervised-device.js';

export interface CardReaderOptions extends DriverOptions {
  /** How long a card sale waits for the reader when the request names no timeout. */
  cardTimeoutMs: number;
}

const stepText: Record<ReaderStep, string> = {
  cardPresented: 'Card presented',
  pinRequested: 'Enter PIN on the reader',
  pinEntered: 'PIN entered',
  removeCard: 'Remove card',
};

/** Marks a wait ended by the caller's AbortSignal. */
class Aborted extends Error {}

/** Marks a wait ended because the reader failed mid-payment. */
class ReaderFailed extends Error {
  constructor(readonly fault: ReaderFault) {
    super(fault);
  }
}

/**
 * While a payment runs the agent sends `keepAlive` this often; a reader that does not
 * acknowledge it (the link's 3 retransmissions, 2 s) has stopped answering
 * (docs/serial-protocol.md, "Decisions", reader liveness).
 */
export const KEEP_ALIVE_MS = 2000;

/** The clerk's sentences for a reader that failed mid-payment (docs/serial-protocol.md, "Decisions"). */
export const readerFaultText: Record<ReaderFault, string> = {
  stopped_answering: 'the card reader stopped answering',
  damaged_messages: "the card reader's messages arrived damaged",
};

/**
 * The card reader driver (docs/serial-protocol.md, "Card reader"): `hello` on every (re)connect,
 * `startPayment` with progress events on the bus, `cancel` on abort or timeout,
 * `showResult`. One request at a time. readCard never rejects and never hangs.
 * Card data is passed through opaque and never logged.
 */
export class SerialCardReader extends SupervisedDevice<FramedSession> implements CardReader {
  private readonly mutex = new Mutex();
  private readonly requestTimeoutMs: number;
  private readonly link: DriverOptions['link'];
  private readonly cardTimeoutMs: number;

  constructor(opts: CardReaderOptions) {
    super(opts, { device: 'reader', label: 'card reader', component: 'card-reader' });
    this.requestTimeoutMs = opts.config.requestTimeoutMs;
    this.link = opts.link;
    this.cardTimeoutMs = opts.cardTimeoutMs;
  }

  protected createSession(stream: Duplex): FramedSession {
    return new FramedSession({
      stream,
      log: this.log,
      label: 'card reader',
      clock: this.clock,
      requestTimeoutMs: this.requestTimeoutMs,
      ...(this.link ? { link: this.link } : {}),
    });
  }

  /** A `hello` round trip on the connected reader. */
  async ping(): Promise<PingResult<DeviceInfo>> {
    const session = this.requireSession();
    return this.mutex.runExclusive(async () => {
      const t0 = this.clock.mono();
      const info = await this.handshake(session);
      return { info, rttMs: this.clock.mono() - t0 };
    });
  }

  async readCard(req: ReadCardRequest): Promise<CardResult> {
    return this.mutex.runExclusive(async () => {
      // Taken inside the lock: the reader may have reconnected while this request waited.
      const session = this.supervisor.session;
      if (!session || session.isClosed)
        return {
          outcome: 'error',
          reason: this.supervisor.status().enabled ? 'the card reader is not connected' : 'the card reader is disabled',
        };
      if (req.signal?.aborted) return { outcome: 'cancelled', reason: 'cancelled before the reader was asked' };
      return this.runPayment(session, req);
    });
  }

  async showResult(approved: boolean, text: string): Promise<void> {
    const session = this.requireSession();
    await this.mutex.runExclusive(async () => {
      // The protocol lists no answer to showResult: the link ACK is the confirmation
      // (docs/serial-protocol.md, "Decisions").
      await session.send({ type: 'showResult', id: session.newId(), approved, text: text.slice(0, 64) });
    });
  }

  private requireSession(): FramedSession {
    const session = this.supervisor.session;
    if (!session || session.isClosed)
      throw new AgentError(ErrorCodes.DEVICE_DISCONNECTED, 'the card reader is not connected');
    return session;
  }

  protected async handshake(session: FramedSession): Promise<DeviceInfo> {
    const answer = await session.request({ type: 'hello' }, ['hello']);
    const parsed = readerHello.safeParse(answer);
    if (!parsed.success)
      throw new AgentError(
        ErrorCodes.DEVICE_ERROR,
        `the card reader answered hello without ${issuePaths(parsed.error).join(', ')}`,
      );
    const h = parsed.data;
    return {
      model: h.model,
      ...(h.serialNumber !== undefined ? { serialNumber: h.serialNumber } : {}),
      ...(h.firmware !== undefined ? { firmware: h.firmware } : {}),
      ...(h.capabilities !== undefined ? { capabilities: h.capabilities } : {}),
    };
  }

  private async runPayment(session: FramedSession, req: ReadCardRequest): Promise<CardResult> {
    const id = session.newId();
    const timeoutMs = req.timeoutMs ?? this.cardTimeoutMs;
    const offEvents = session.onMessage((m) => {
      if (m.type === 'event' && m.id === id) this.onProgress(m, req.clientTransactionId);
    });
    const waiter = session.expect(id, ['cardResult'], timeoutMs, 'startPayment');
    const onAbort = (): void => waiter.cancel(new Aborted('aborted'));
    req.signal?.addEventListener('abort', onAbort, { once: true });
    // Reader liveness (docs/serial-protocol.md, "Decisions"): without these the payment
    // would wait for cardTimeoutMs and end as "no card presented" after the PIN was in.
    let fault: ReaderFault | undefined;
    const failWith = (f: ReaderFault): void => {
      fault ??= f;
      waiter.cancel(new ReaderFailed(fault));
    };
    const offFailure = session.onFailure(() => failWith('stopped_answering'));
    const offGaveUp = session.onPeerGaveUp(() => failWith('damaged_messages'));
    let running = true;
    let keepAlive: TimerHandle | undefined;
    const scheduleKeepAlive = (): void => {
      if (!running) return;
      keepAlive = this.clock.setTimeout(() => {
        keepAlive = undefined;
        if (!running || session.isClosed) return;
        // No answer is awaited: the link ACK is the proof of life; a LINK_NO_ACK reaches onFailure above.
        session.send({ type: 'keepAlive', id: session.newId() }).then(scheduleKeepAlive, () => {});
      }, KEEP_ALIVE_MS);
    };
    this.log.info(
      { id, amount: req.amount, currency: req.currency, clientTransactionId: req.clientTransactionId },
      'asking the reader for a card',
    );
    try {
      await session.send({
        type: 'startPayment',
        id,
        amount: req.amount,
        currency: req.currency,
        entryModes: req.entryModes,
        offlineAllowed: req.offlineAllowed,
      });
      scheduleKeepAlive();
      const answer = await waiter.promise;
      return this.toResult(answer);
    } catch (err) {
      waiter.cancel(err instanceof Error ? err : new Error(String(err)));
      if (err instanceof Aborted) {
        await this.cancelOnDevice(session, id);
        return { outcome: 'cancelled', reason: 'cancelled at the counter' };
      }
      if (isAgentError(err, ErrorCodes.LINK_NO_ACK))
        return { outcome: 'error', reason: 'the card reader did not acknowledge the payment request' };
      if (fault !== undefined) {
        this.log.warn({ id, fault }, 'the card reader failed during the payment');
        // A reader that only garbles its messages is still there: ask it to abort, so it
        // does not keep the card session open. One that stopped answering has been dropped.
        if (fault === 'damaged_messages') await this.cancelOnDevice(session, id);
        return { outcome: 'error', reason: readerFaultText[fault], fault };
      }
      if (isAgentError(err, ErrorCodes.DEVICE_TIMEOUT)) {
        this.log.warn({ id, timeoutMs }, 'no card result in time, cancelling on the reader');
        await this.cancelOnDevice(session, id);
        return { outcome: 'timeout', reason: `no card result within ${Math.round(timeoutMs / 1000)} s` };
      }
      if (isAgentError(err, ErrorCodes.DEVICE_DISCONNECTED))
        return { outcome: 'error', reason: 'the card reader disconnected' };
      if (isAgentError(err)) return { outcome: 'error', reason: err.message };
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'card reader request failed');
      return { outcome: 'error', reason: 'card reader failure' };
    } finally {
      running = false;
      if (keepAlive !== undefined) this.clock.clearTimeout(keepAlive);
      offFailure();
      offGaveUp();
      offEvents();
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Sends `cancel` with the payment's id and waits (bounded) for the reader's cardResult. */
  private async cancelOnDevice(session: FramedSession, id: string): Promise<void> {
    if (session.isClosed) return;
    const waiter = session.expect(id, ['cardResult'], this.requestTimeoutMs, 'cancel');
    // Its answer to the cancel may arrive damaged too: no need to wait the full timeout then.
    const offGaveUp = session.onPeerGaveUp((err) => waiter.cancel(err));
    try {
      await session.send({ type: 'cancel', id });
      const answer = await waiter.promise;
      const parsed = cardResult.safeParse(answer);
      const outcome = parsed.success ? parsed.data.outcome : 'invalid';
      if (outcome === 'ok')
        this.log.warn({ id }, 'the reader read a card as the request was cancelled; its data is discarded');
      else this.log.info({ id, outcome }, 'reader confirmed the cancel');
    } catch (err) {
      waiter.cancel(err instanceof Error ? err : new Error(String(err)));
      this.log.warn({ id, code: isAgentError(err) ? err.code : undefined }, 'the reader did not confirm the cancel');
    } finally {
      offGaveUp();
    }
  }

  private toResult(answer: DeviceMessage): CardResult {
    if (answer.outcome === 'ok') {
      const ok = cardResultOk.safeParse(answer);
      if (!ok.success) {
        // Field names only: the values may be card data.
        this.log.warn({ fields: issuePaths(ok.error) }, 'invalid card result from the reader');
        return {
          outcome: 'error',
          reason: `the card reader sent an invalid card result (${issuePaths(ok.error).join(', ')})`,
        };
      }
      const r = ok.data;
      this.log.info(
        {
          outcome: 'ok',
          entryMode: r.entryMode,
          scheme: r.card.scheme,
          pin: r.pin !== undefined,
          offlineApproved: r.offlineApproved === true,
        },
        'card read',
      );
      return {
        outcome: 'ok',
        entryMode: r.entryMode,
        card: {
          maskedPan: r.card.maskedPan,
          scheme: r.card.scheme,
          expiry: r.card.expiry,
          encryptedData: r.card.encryptedData,
          ksn: r.card.ksn,
        },
        ...(r.pin ? { pin: { pinblock: r.pin.pinblock, ksn: r.pin.ksn, format: r.pin.format } } : {}),
        ...(r.offlineApproved !== undefined ? { offlineApproved: r.offlineApproved } : {}),
      };
    }
    const parsed = cardResult.safeParse(answer);
    if (!parsed.success || parsed.data.outcome === 'ok') {
      this.log.warn({ fields: parsed.success ? [] : issuePaths(parsed.error) }, 'invalid card result from the reader');
      return { outcome: 'error', reason: 'the card reader sent an invalid card result' };
    }
    const r = parsed.data;
    this.log.info({ outcome: r.outcome, reason: r.reason }, 'no card data');
    return { outcome: r.outcome, reason: r.reason ?? r.outcome };
  }

  private onProgress(m: DeviceMessage, clientTransactionId: string | undefined): void {
    const parsed = readerEvent.safeParse(m);
    if (!parsed.success) return;
    const step = parsed.data.event;
    const known = (readerSteps as readonly string[]).includes(step);
    this.bus.publish('reader.progress', {
      step,
      ...(clientTransactionId !== undefined ? { clientTransactionId } : {}),
      ...(parsed.data.entryMode !== undefined ? { entryMode: parsed.data.entryMode } : {}),
      ...(known ? { text: stepText[step as ReaderStep] } : {}),
    });
  }
}
