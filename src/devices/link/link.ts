import type { Duplex } from 'node:stream';
import { AgentError, ErrorCodes, systemClock, type Logger, type Clock, type TimerHandle } from '../../core/index.js';
import { ACK_TIMEOUT_MS, MAX_PAYLOAD, MAX_RETRANSMISSIONS } from './constants.js';
import { carriesCardData, type LinkPayload } from './frame.js';
import { FrameParser, type LinkUnit } from './parser.js';
import { FrameWriter } from './writer.js';

export interface LinkCounters {
  framesSent: number;
  framesReceived: number;
  retransmissions: number;
  acksSent: number;
  naksSent: number;
  acksReceived: number;
  naksReceived: number;
  /** Frames with the SEQ of the last accepted one: ACKed again, not delivered (docs/serial-protocol.md, "Duplicates"). */
  duplicates: number;
  damaged: number;
  noiseBytes: number;
  partialDiscards: number;
  /** ACK/NAK bytes that matched no frame in flight. */
  strayAcks: number;
  /** Messages given up after the last retransmission (docs/serial-protocol.md, "Retransmission"). */
  noAck: number;
  /**
   * Messages the peer must have given up: every one of its 1 + 3 copies arrived damaged and
   * was NAKed (docs/serial-protocol.md, "Decisions", damaged messages).
   */
  peerGaveUp: number;
}

export interface LinkOptions {
  /** Bytes from the peer come out of it, bytes to the peer go into it. */
  stream: Duplex;
  log: Logger;
  clock?: Clock;
  ackTimeoutMs?: number;
  maxRetransmissions?: number;
  interByteTimeoutMs?: number;
  /** First SEQ this side sends; random by default, so a restarted sender is not taken for a duplicate. */
  initialSeq?: number;
}

interface Outgoing {
  bytes: Buffer;
  type: string;
  sensitive: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface InFlight extends Outgoing {
  seq: number;
  frame: Buffer;
  retransmissions: number;
  timer: TimerHandle | undefined;
}

export function emptyCounters(): LinkCounters {
  return {
    framesSent: 0,
    framesReceived: 0,
    retransmissions: 0,
    acksSent: 0,
    naksSent: 0,
    acksReceived: 0,
    naksReceived: 0,
    duplicates: 0,
    damaged: 0,
    noiseBytes: 0,
    partialDiscards: 0,
    strayAcks: 0,
    noAck: 0,
    peerGaveUp: 0,
  };
}

/**
 * The framed link (docs/serial-protocol.md, "Frame layout" to "Size limit") over one
 * open port: ACK/NAK, 500 ms ACK timeout with at most 3 retransmissions of the same SEQ,
 * duplicates ACKed but delivered once, one frame in flight per direction (later sends
 * queue behind it).
 */
export class Link {
  readonly counters: LinkCounters = emptyCounters();
  private readonly parser: FrameParser;
  private readonly writer: FrameWriter;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly ackTimeoutMs: number;
  private readonly maxRetransmissions: number;
  private readonly queue: Outgoing[] = [];
  private inFlight: InFlight | undefined;
  private nextSeq: number;
  private lastAcceptedSeq: number | undefined;
  private closed = false;
  private readonly messageListeners = new Set<(payload: LinkPayload) => void>();
  private readonly failureListeners = new Set<(err: AgentError) => void>();
  private readonly gaveUpListeners = new Set<(err: AgentError) => void>();
  /** Damaged frames per SEQ since the last intact frame from the peer. */
  private readonly damagedBySeq = new Map<number, number>();
  private readonly onData = (chunk: Buffer): void => {
    if (!this.closed) this.parser.write(chunk);
  };

  constructor(private readonly opts: LinkOptions) {
    this.clock = opts.clock ?? systemClock();
    this.log = opts.log;
    this.ackTimeoutMs = opts.ackTimeoutMs ?? ACK_TIMEOUT_MS;
    this.maxRetransmissions = opts.maxRetransmissions ?? MAX_RETRANSMISSIONS;
    this.nextSeq = (opts.initialSeq ?? Math.floor(Math.random() * 256)) & 0xff;
    this.parser = new FrameParser({
      clock: this.clock,
      ...(opts.interByteTimeoutMs !== undefined ? { interByteTimeoutMs: opts.interByteTimeoutMs } : {}),
    });
    this.writer = new FrameWriter(opts.stream, (err) => this.log.debug({ err: err.message }, 'write to port failed'));
    this.parser.on('data', (unit: LinkUnit) => this.onUnit(unit));
    // The parser never fails on input; this only keeps a stray stream error from crashing the process.
    this.parser.on('error', (err: Error) => this.log.error({ err: err.message }, 'frame parser failed'));
    opts.stream.on('data', this.onData);
  }

  /** Resolves when the peer ACKs the frame; rejects with LINK_NO_ACK, LINK_OVERSIZE or DEVICE_DISCONNECTED. */
  send(payload: LinkPayload): Promise<void> {
    if (this.closed) return Promise.reject(new AgentError(ErrorCodes.DEVICE_DISCONNECTED, 'the device link is closed'));
    const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
    if (bytes.length > MAX_PAYLOAD) {
      return Promise.reject(
        new AgentError(
          ErrorCodes.LINK_OVERSIZE,
          `a ${String(payload.type)} message of ${bytes.length} bytes exceeds the ${MAX_PAYLOAD}-byte frame limit`,
          {
            details: { length: bytes.length, limit: MAX_PAYLOAD },
          },
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ bytes, type: String(payload.type), sensitive: carriesCardData(payload), resolve, reject });
      this.pump();
    });
  }

  /** Every frame delivered once, in order of arrival. */
  onMessage(listener: (payload: LinkPayload) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** A message given up after its last retransmission: the device may be gone. */
  onFailure(listener: (err: AgentError) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /**
   * The peer gave up a message of its own: all its copies (1 + the spec's 3
   * retransmissions) arrived damaged and were NAKed, with no intact frame between them
   * (docs/serial-protocol.md, "Decisions"). The link itself stays up.
   */
  onPeerGaveUp(listener: (err: AgentError) => void): () => void {
    this.gaveUpListeners.add(listener);
    return () => this.gaveUpListeners.delete(listener);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Detaches from the port; pending and queued messages fail with DEVICE_DISCONNECTED. */
  close(reason = 'the device link is closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.stream.off('data', this.onData);
    this.parser.destroy();
    const err = new AgentError(ErrorCodes.DEVICE_DISCONNECTED, reason);
    if (this.inFlight) {
      if (this.inFlight.timer !== undefined) this.clock.clearTimeout(this.inFlight.timer);
      this.inFlight.reject(err);
      this.inFlight = undefined;
    }
    for (const o of this.queue.splice(0)) o.reject(err);
  }

  private pump(): void {
    if (this.closed || this.inFlight || this.queue.length === 0) return;
    const next = this.queue.shift() as Outgoing;
    const seq = this.nextSeq;
    this.nextSeq = (this.nextSeq + 1) & 0xff;
    const frame = this.writer.frame(seq, next.bytes);
    this.counters.framesSent++;
    this.inFlight = { ...next, seq, frame, retransmissions: 0, timer: undefined };
    this.traceFrame('frame out', seq, next.type, next.sensitive, frame);
    this.armAckTimer();
  }

  private armAckTimer(): void {
    const f = this.inFlight;
    if (!f) return;
    if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
    f.timer = this.clock.setTimeout(() => {
      f.timer = undefined;
      if (this.inFlight === f) this.retransmitOrFail('no ACK within ' + this.ackTimeoutMs + ' ms');
    }, this.ackTimeoutMs);
  }

  /** Rule 1: same frame, same SEQ, at most maxRetransmissions times. */
  private retransmitOrFail(why: string): void {
    const f = this.inFlight;
    if (!f || this.closed) return;
    if (f.retransmissions >= this.maxRetransmissions) {
      if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
      this.inFlight = undefined;
      this.counters.noAck++;
      const err = new AgentError(
        ErrorCodes.LINK_NO_ACK,
        `the device did not acknowledge a ${f.type} message after ${this.maxRetransmissions} retransmissions`,
        {
          details: { seq: f.seq, type: f.type },
        },
      );
      this.log.warn({ code: err.code, seq: f.seq, type: f.type }, 'device did not acknowledge');
      f.reject(err);
      for (const l of [...this.failureListeners]) this.safely(() => l(err));
      this.pump();
      return;
    }
    f.retransmissions++;
    this.counters.retransmissions++;
    this.log.debug({ seq: f.seq, type: f.type, attempt: f.retransmissions, why }, 'retransmitting frame');
    this.writer.raw(f.frame);
    this.armAckTimer();
  }

  private onUnit(unit: LinkUnit): void {
    if (this.closed) return;
    switch (unit.kind) {
      case 'frame':
        this.onFrame(unit.seq, unit.payload, unit.raw);
        break;
      case 'damaged':
        this.counters.damaged++;
        this.counters.naksSent++;
        // No hex dump: a damaged frame may be a cardResult.
        this.log.debug({ seq: unit.seq, reason: unit.reason }, 'damaged frame, sending NAK');
        this.writer.nak(unit.seq);
        this.countDamaged(unit.seq);
        break;
      case 'ack':
      case 'nak':
        this.onAckOrNak(unit.kind, unit.seq);
        break;
      case 'discarded':
        if (unit.reason === 'noise') this.counters.noiseBytes += unit.bytes;
        else this.counters.partialDiscards++;
        this.log.debug({ bytes: unit.bytes, reason: unit.reason }, 'discarded bytes');
        break;
    }
  }

  /**
   * The peer sends a message at most 1 + MAX_RETRANSMISSIONS times with one SEQ, and only
   * one frame is in flight per direction: that many damaged copies of one SEQ with no
   * intact frame between them means it has given that message up.
   */
  private countDamaged(seq: number): void {
    const copies = (this.damagedBySeq.get(seq) ?? 0) + 1;
    if (copies < 1 + this.maxRetransmissions) {
      this.damagedBySeq.set(seq, copies);
      return;
    }
    this.damagedBySeq.delete(seq);
    this.counters.peerGaveUp++;
    const err = new AgentError(
      ErrorCodes.DEVICE_ERROR,
      `the device's message arrived damaged ${copies} times and the device gave it up`,
      {
        details: { seq, copies, reason: 'damaged' },
      },
    );
    this.log.warn({ seq, copies }, 'every copy of a device message arrived damaged');
    for (const l of [...this.gaveUpListeners]) this.safely(() => l(err));
  }

  private onFrame(seq: number, payload: LinkPayload, raw: Buffer): void {
    this.damagedBySeq.clear();
    this.writer.ack(seq);
    this.counters.acksSent++;
    if (seq === this.lastAcceptedSeq) {
      // Rule 2: our ACK was lost and the peer sent the frame again.
      this.counters.duplicates++;
      this.log.debug({ seq }, 'duplicate frame acknowledged again, not delivered');
      return;
    }
    this.lastAcceptedSeq = seq;
    this.counters.framesReceived++;
    this.traceFrame('frame in', seq, String(payload.type), carriesCardData(payload), raw);
    for (const l of [...this.messageListeners]) this.safely(() => l(payload));
  }

  private onAckOrNak(kind: 'ack' | 'nak', seq: number): void {
    const f = this.inFlight;
    if (!f || f.seq !== seq) {
      // Rule 3: a lone ACK for an unknown SEQ (e.g. a late one after a retransmission).
      this.counters.strayAcks++;
      return;
    }
    if (kind === 'ack') {
      this.counters.acksReceived++;
      if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
      this.inFlight = undefined;
      f.resolve();
      this.pump();
      return;
    }
    this.counters.naksReceived++;
    this.retransmitOrFail('NAK');
  }

  private traceFrame(msg: string, seq: number, type: string, sensitive: boolean, bytes: Buffer): void {
    if (!this.log.isLevelEnabled('trace')) return;
    // Hex dumps at trace level only, never of frames carrying card data
    // (docs/serial-protocol.md, "Decisions", Logging).
    if (sensitive) this.log.trace({ seq, type, length: bytes.length }, msg);
    else this.log.trace({ seq, type, hex: bytes.toString('hex') }, msg);
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'link listener failed');
    }
  }
}
