import type { Duplex } from 'node:stream';
import { AgentError, ErrorCodes, type Clock, type TimerHandle } from '../core/index.js';
import type { BarcodeScanner } from './api.js';
import type { DriverOptions } from './framed-device.js';
import { LineParser, type LineUnit } from './lines/parser.js';
import type { PortSession } from './port-supervisor.js';
import { SupervisedDevice } from './supervised-device.js';

/** An open scanner port: raw lines, no handshake (docs/serial-protocol.md, "Barcode scanner"). */
export class LineSession implements PortSession {
  private readonly parser: LineParser;
  private readonly listeners = new Set<(unit: LineUnit) => void>();
  private readonly onData = (chunk: Buffer): void => {
    this.parser.write(chunk);
  };

  constructor(
    private readonly stream: Duplex,
    clock: Clock,
  ) {
    this.parser = new LineParser({ clock });
    this.parser.on('error', () => {});
    this.parser.on('data', (unit: LineUnit) => {
      for (const l of [...this.listeners]) l(unit);
    });
    stream.on('data', this.onData);
  }

  onUnit(listener: (unit: LineUnit) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.stream.off('data', this.onData);
    this.parser.destroy();
  }
}

interface PendingScan {
  resolve: (text: string) => void;
  reject: (err: Error) => void;
}

/**
 * The barcode scanner driver: the next scanned line completes the one pending
 * `nextScan` (a merchant-scan sale); lines with nobody waiting are dropped, so an old
 * scan never pays a later sale. Scanned text is not logged, only its length.
 */
export class SerialBarcodeScanner extends SupervisedDevice<LineSession> implements BarcodeScanner {
  private pending: PendingScan | undefined;

  constructor(opts: DriverOptions) {
    super(opts, { device: 'scanner', label: 'barcode scanner', component: 'barcode-scanner' });
  }

  protected createSession(stream: Duplex): LineSession {
    const session = new LineSession(stream, this.clock);
    session.onUnit((unit) => this.onUnit(unit));
    return session;
  }

  /** A scanner has no handshake: an open port is a connected scanner. */
  protected handshake(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  override async stop(): Promise<void> {
    this.pending?.reject(new AgentError(ErrorCodes.DEVICE_DISCONNECTED, 'the barcode scanner was stopped'));
    await super.stop();
  }

  /** The next scanned line; rejects with DEVICE_TIMEOUT after timeoutMs or when aborted. */
  nextScan(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<string> {
    if (!this.supervisor.connected) {
      return Promise.reject(
        new AgentError(
          ErrorCodes.DEVICE_DISCONNECTED,
          this.supervisor.status().enabled ? 'the barcode scanner is not connected' : 'the barcode scanner is disabled',
        ),
      );
    }
    if (this.pending)
      return Promise.reject(new AgentError(ErrorCodes.DEVICE_BUSY, 'another sale is already waiting for a scan'));
    if (opts.signal?.aborted)
      return Promise.reject(
        new AgentError(ErrorCodes.DEVICE_TIMEOUT, 'waiting for a scan was aborted', { details: { aborted: true } }),
      );
    return new Promise<string>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const onAbort = (): void =>
        entry.reject(
          new AgentError(ErrorCodes.DEVICE_TIMEOUT, 'waiting for a scan was aborted', { details: { aborted: true } }),
        );
      const done = (): void => {
        if (this.pending === entry) this.pending = undefined;
        if (timer !== undefined) this.clock.clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      const entry: PendingScan = {
        resolve: (text) => {
          done();
          resolve(text);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      };
      this.pending = entry;
      timer = this.clock.setTimeout(
        () =>
          entry.reject(
            new AgentError(
              ErrorCodes.DEVICE_TIMEOUT,
              `no code was scanned within ${Math.round(opts.timeoutMs / 1000)} s`,
              { details: { timeoutMs: opts.timeoutMs } },
            ),
          ),
        opts.timeoutMs,
      );
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private onUnit(unit: LineUnit): void {
    if (unit.kind === 'discarded') {
      this.log.warn({ bytes: unit.bytes, reason: unit.reason }, 'scanned line discarded');
      return;
    }
    this.bus.publish('scanner.line', { length: unit.text.length });
    if (this.pending) {
      this.log.info({ length: unit.text.length }, 'scan received');
      this.pending.resolve(unit.text);
    } else {
      this.log.info({ length: unit.text.length }, 'scan with no sale waiting, ignored');
    }
  }
}
