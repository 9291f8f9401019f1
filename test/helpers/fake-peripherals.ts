import type {
  BarcodeScanner,
  CardData,
  CardReader,
  CardResult,
  CustomerDisplay,
  DeviceInfo,
  Peripherals,
  ReadCardRequest,
  ShowQrOptions,
} from '../../src/devices/api.js';
import { AgentError } from '../../src/core/errors.js';

export const visaCard = (maskedPan = '411111******1111'): CardData => ({
  maskedPan,
  scheme: 'VISA',
  expiry: '2812',
  encryptedData: 'ENCRYPTED-CARD-DATA-0123456789ABCDEF',
  ksn: 'FFFF9876543210E00001',
});

export type ReaderStep = CardResult | 'wait-abort' | ((req: ReadCardRequest) => Promise<CardResult>);

/** A card reader that answers from a queue; 'wait-abort' waits until the sale is aborted. */
export class FakeReader implements CardReader {
  readonly requests: ReadCardRequest[] = [];
  readonly results: Array<{ approved: boolean; text: string }> = [];
  private readonly queue: ReaderStep[] = [];
  connected = true;
  info: DeviceInfo | undefined = { model: 'fake-reader' };

  next(...steps: ReaderStep[]): this {
    this.queue.push(...steps);
    return this;
  }

  async readCard(req: ReadCardRequest): Promise<CardResult> {
    this.requests.push(req);
    const step = this.queue.shift() ?? {
      outcome: 'ok',
      entryMode: req.entryModes[0] ?? 'ContactChip',
      card: visaCard(),
    };
    if (typeof step === 'function') return step(req);
    if (step === 'wait-abort') {
      return new Promise((resolve) => {
        const done = (): void => resolve({ outcome: 'cancelled', reason: 'aborted by the merchant' });
        if (req.signal?.aborted) done();
        else req.signal?.addEventListener('abort', done, { once: true });
      });
    }
    return step;
  }

  async showResult(approved: boolean, text: string): Promise<void> {
    this.results.push({ approved, text });
  }
}

export class FakeDisplay implements CustomerDisplay {
  readonly qrs: Array<{ codeValue: string; caption: string; opts?: ShowQrOptions }> = [];
  readonly texts: string[][] = [];
  clears = 0;
  connected = true;

  async showQr(codeValue: string, caption: string, opts?: ShowQrOptions): Promise<void> {
    this.qrs.push({ codeValue, caption, ...(opts !== undefined ? { opts } : {}) });
  }

  async showText(lines: string[]): Promise<void> {
    this.texts.push(lines);
  }

  async clear(): Promise<void> {
    this.clears++;
  }
}

/** A scanner answering queued lines; with none queued it waits for the timeout or the abort. */
export class FakeScanner implements BarcodeScanner {
  private readonly lines: string[] = [];
  readonly calls: Array<{ timeoutMs: number }> = [];
  connected = true;

  push(line: string): void {
    this.lines.push(line);
  }

  nextScan(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<string> {
    this.calls.push({ timeoutMs: opts.timeoutMs });
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new AgentError('DEVICE_TIMEOUT', 'no scan in time')), opts.timeoutMs);
      opts.signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(new AgentError('DEVICE_TIMEOUT', 'scan aborted'));
        },
        { once: true },
      );
    });
  }
}

export function fakePeripherals(): Peripherals & { reader: FakeReader; display: FakeDisplay; scanner: FakeScanner } {
  return { reader: new FakeReader(), display: new FakeDisplay(), scanner: new FakeScanner() };
}
