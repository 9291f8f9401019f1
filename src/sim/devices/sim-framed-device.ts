import { Duplex } from 'node:stream';
import { systemClock, type Logger, type Clock } from '../../core/index.js';
import { Link, type LinkOptions, type LinkPayload } from '../../devices/index.js';

export interface SimDeviceOptions {
  log: Logger;
  clock?: Clock;
  link?: Partial<Pick<LinkOptions, 'ackTimeoutMs' | 'maxRetransmissions' | 'interByteTimeoutMs'>>;
}

/**
 * The device side of the framed link (docs/serial-protocol.md, "Frame layout" to
 * "Messages") over any duplex:
 * a simulated port's device end, or the far side of a socat pseudo-terminal pair. A
 * power cycle (unplug/replug of a simulated port) restarts its link, as on hardware.
 */
const RECEIVED_KEPT = 200;

export abstract class SimFramedDevice {
  /** The last RECEIVED_KEPT messages received, in order (tests inspect them); bounded so a long demo run does not grow. */
  readonly received: LinkPayload[] = [];
  protected readonly log: Logger;
  protected readonly clock: Clock;
  /**
   * Fault: the device goes silent, as a hung reader does: nothing it receives is read or
   * acknowledged and it sends nothing, until a power cycle (replug) or `silent = false`.
   */
  silent = false;
  /**
   * Fault: every frame (each retransmission too) carrying a message of one of these types
   * leaves with a damaged payload byte, so the agent NAKs every copy and the device's
   * link gives the message up after its retransmissions.
   */
  readonly damagedTypes = new Set<string>();
  private link: Link;
  private readonly stream: Duplex;
  /** What the link reads and writes: the port, seen through the fault switches above. */
  private readonly wire: Duplex;
  private readonly linkOptions: SimDeviceOptions['link'];
  private readonly onReplug = (): void => this.restartLink();

  constructor(stream: Duplex, opts: SimDeviceOptions) {
    this.stream = stream;
    this.log = opts.log;
    this.clock = opts.clock ?? systemClock();
    this.linkOptions = opts.link;
    this.wire = this.faultyWire(stream);
    this.link = this.newLink();
    stream.on('replug', this.onReplug);
  }

  /** Sends a message to the agent; a lost link is logged, never thrown. */
  protected reply(payload: LinkPayload): Promise<void> {
    return this.link.send(payload).catch((err: unknown) => {
      this.log.debug(
        { type: payload.type, err: err instanceof Error ? err.message : String(err) },
        'simulated device could not send',
      );
    });
  }

  protected abstract handle(message: LinkPayload): void;

  /** Messages of one type received so far. */
  receivedOfType(type: string): LinkPayload[] {
    return this.received.filter((m) => m.type === type);
  }

  close(): void {
    this.stream.off('replug', this.onReplug);
    this.stream.off('data', this.onWireData);
    this.link.close('simulated device stopped');
  }

  private readonly onWireData = (chunk: Buffer): void => {
    if (!this.silent) this.wire.push(chunk);
  };

  private faultyWire(stream: Duplex): Duplex {
    const damaged = (chunk: Buffer): boolean => {
      if (this.damagedTypes.size === 0 || chunk[0] !== 0x02 || chunk.length < 8) return false;
      const text = chunk.toString('latin1');
      return [...this.damagedTypes].some((t) => text.includes(`"type":${JSON.stringify(t)}`));
    };
    const wire = new Duplex({
      read() {},
      write: (chunk: Buffer, _enc, cb) => {
        if (this.silent || stream.destroyed || stream.writableEnded) {
          cb();
          return;
        }
        let out = chunk;
        if (damaged(chunk)) {
          out = Buffer.from(chunk);
          // The payload's first byte: the CRC no longer matches, LEN and SEQ stay readable.
          out[4] = (out[4] as number) ^ 0x40;
        }
        stream.write(out, (err) => cb(err ?? null));
      },
    });
    stream.on('data', this.onWireData);
    return wire;
  }

  private restartLink(): void {
    // A power cycle clears a hang.
    this.silent = false;
    this.link.close('power cycle');
    this.link = this.newLink();
  }

  private newLink(): Link {
    const link = new Link({ ...this.linkOptions, stream: this.wire, log: this.log, clock: this.clock });
    link.onMessage((m) => {
      this.received.push(m);
      if (this.received.length > RECEIVED_KEPT) this.received.splice(0, this.received.length - RECEIVED_KEPT);
      try {
        this.handle(m);
      } catch (err) {
        this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'simulated device failed');
      }
    });
    return link;
  }

  protected unknownType(message: LinkPayload): void {
    void this.reply({ type: 'error', id: message.id, code: 'unknown_type' });
  }
}
