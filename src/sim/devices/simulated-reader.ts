import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { TimerHandle } from '../../core/index.js';
import type { EntryMode, LinkPayload } from '../../devices/index.js';
import { SimFramedDevice, type SimDeviceOptions } from './sim-framed-device.js';

/** What the simulated reader does with the next startPayment. */
export interface SimulatedCard {
  /** How the card is read when the startPayment asks for it (else the first mode asked for; default ContactlessChip). */
  entryMode?: EntryMode;
  /** The card asks for an online PIN (pinRequested, pinEntered, `pin` in the result). */
  onlinePin?: boolean;
  /**
   * approve: card read (the platform decides); offlineApproved: read and approved by the
   * chip offline; decline: declined by the card; timeout: nobody presents a card and the
   * reader gives up; removedMidPin: the card is pulled during PIN entry; error: read
   * error; noAnswer: the reader never answers (only a cancel ends it).
   */
  result?: 'approve' | 'offlineApproved' | 'decline' | 'timeout' | 'removedMidPin' | 'error' | 'noAnswer';
  /**
   * A reader fault during this payment, after the card and PIN events (the PIN is always
   * asked): `silentAfterPin` the reader hangs (no ACK, no message, until a power cycle);
   * `damagedResult` every copy of its cardResult (and of any later one) leaves damaged, so
   * it gives the result up after its retransmissions (cleared by `repair()`).
   */
  fault?: 'silentAfterPin' | 'damagedResult';
  /** Time until the card is presented (default 1000 ms). */
  delayMs?: number;
  /** Time the customer takes for the PIN (default 300 ms). */
  pinDelayMs?: number;
  maskedPan?: string;
  scheme?: string;
  expiry?: string;
}

export interface SimulatedReaderOptions extends SimDeviceOptions {
  /** Used when no card was queued with nextCard(): an approved contactless card after ~1 s. */
  defaultCard?: SimulatedCard;
}

interface Running {
  id: string;
  timers: Set<TimerHandle>;
  finished: boolean;
}

export const SIM_READER_INFO = {
  model: 'SIM-READER-1',
  serialNumber: 'SIMR0001',
  firmware: '1.4.2',
  capabilities: ['chip', 'contactless', 'magstripe', 'pin', 'offline'],
};

const ENTRY_MODES: readonly EntryMode[] = ['ContactChip', 'ContactlessChip', 'Magstripe', 'Keyed'];
/** What a card sale asks for when a startPayment names no (known) entry mode. */
const CARD_MODES: readonly EntryMode[] = ['ContactChip', 'ContactlessChip', 'Magstripe'];

/** The entry modes a startPayment asks for (docs/serial-protocol.md, "Card reader"); unknown names are ignored. */
function requestedModes(raw: unknown): readonly EntryMode[] {
  const modes = Array.isArray(raw) ? raw.filter((x): x is EntryMode => ENTRY_MODES.includes(x as EntryMode)) : [];
  return modes.length > 0 ? modes : CARD_MODES;
}

/**
 * How the card is read: the scripted mode when the terminal asked for it, else the first
 * mode it asked for. A reader only reads a card the way it was asked to (a MOTO sale asks
 * for `Keyed` alone), so a contactless default never answers a keyed request.
 */
export function readEntryMode(scripted: EntryMode | undefined, requested: readonly EntryMode[]): EntryMode {
  const preferred = scripted ?? 'ContactlessChip';
  return requested.includes(preferred) ? preferred : (requested[0] ?? preferred);
}

/** A card reader that speaks docs/serial-protocol.md, "Card reader", with scripted cards. */
export class SimulatedReader extends SimFramedDevice {
  private readonly queue: SimulatedCard[] = [];
  private defaultCard: SimulatedCard;
  private running: Running | undefined;
  /** What the reader's own screen shows after showResult. */
  lastResult: { approved: boolean; text: string } | undefined;
  /** When true, hello is not answered (a reader that is there but does not speak). */
  mute = false;

  constructor(stream: Duplex, opts: SimulatedReaderOptions) {
    super(stream, opts);
    this.defaultCard = opts.defaultCard ?? {};
  }

  /** Scripts the next card (queued; each startPayment takes one). */
  nextCard(card: SimulatedCard): void {
    this.queue.push(card);
  }

  setDefaultCard(card: SimulatedCard): void {
    this.defaultCard = card;
  }

  /** Ends the damaged-frames fault. */
  repair(): void {
    this.damagedTypes.clear();
    this.silent = false;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  override close(): void {
    this.stopRunning();
    super.close();
  }

  protected handle(m: LinkPayload): void {
    switch (m.type) {
      case 'hello':
        if (!this.mute) void this.reply({ type: 'hello', id: m.id, ...SIM_READER_INFO });
        return;
      case 'startPayment':
        this.startPayment(m);
        return;
      case 'cancel':
        this.cancel(m);
        return;
      case 'keepAlive':
        // Proof of life while a payment runs: the link ACK is the whole answer.
        return;
      case 'showResult':
        this.lastResult = { approved: m.approved === true, text: typeof m.text === 'string' ? m.text : '' };
        return;
      default:
        this.unknownType(m);
    }
  }

  private startPayment(m: LinkPayload): void {
    const id = String(m.id);
    if (this.running) {
      void this.reply({ type: 'error', id, code: 'busy' });
      return;
    }
    const scripted = { ...this.defaultCard, ...(this.queue.shift() ?? {}) };
    const entryMode = readEntryMode(scripted.entryMode, requestedModes(m.entryModes));
    // A chip or contactless card approves offline (its own risk management) when the terminal
    // allows it and nothing scripted says otherwise, so the demo takes offline sales while
    // the platform is down (docs/serial-protocol.md, "Card reader"); a keyed or magstripe read never does.
    const chip = entryMode === 'ContactChip' || entryMode === 'ContactlessChip';
    const read: SimulatedCard = { ...scripted, entryMode };
    const card: SimulatedCard =
      m.offlineAllowed === true && scripted.result === undefined && chip
        ? { ...read, result: 'offlineApproved' }
        : read;
    const run: Running = { id, timers: new Set(), finished: false };
    this.running = run;
    void this.play(run, card);
  }

  private async play(run: Running, card: SimulatedCard): Promise<void> {
    const entryMode = card.entryMode ?? 'ContactlessChip';
    const result = card.result ?? 'approve';
    const event = (name: string): Promise<void> => this.reply({ type: 'event', id: run.id, event: name, entryMode });
    const finish = (payload: LinkPayload): Promise<void> => {
      if (run.finished) return Promise.resolve();
      this.stopRunning();
      return this.reply({ type: 'cardResult', id: run.id, ...payload });
    };
    try {
      if (result === 'noAnswer') return;
      await this.wait(run, card.delayMs ?? 1000);
      if (result === 'timeout') {
        await finish({ outcome: 'timeout', reason: 'no card presented' });
        return;
      }
      // Keyed: the card number is typed on the reader's keypad; no card is presented and no
      // PIN is asked (manual entry and MOTO: docs/serial-protocol.md, "Decisions", Keyed).
      const keyed = entryMode === 'Keyed';
      if (!keyed) await event('cardPresented');
      const wantsPin = !keyed && (card.onlinePin === true || result === 'removedMidPin' || card.fault !== undefined);
      if (wantsPin) {
        await event('pinRequested');
        await this.wait(run, card.pinDelayMs ?? 300);
        if (result === 'removedMidPin') {
          await finish({ outcome: 'error', reason: 'card removed during PIN entry' });
          return;
        }
        await event('pinEntered');
      }
      if (card.fault === 'silentAfterPin') {
        // The customer has entered the PIN; the reader hangs before it sends anything more.
        this.silent = true;
        this.stopRunning();
        return;
      }
      if (card.fault === 'damagedResult') this.damagedTypes.add('cardResult');
      if (entryMode === 'ContactChip') await event('removeCard');
      if (result === 'decline') {
        await finish({ outcome: 'declined', reason: 'declined by the card' });
        return;
      }
      if (result === 'error') {
        await finish({ outcome: 'error', reason: 'card read error' });
        return;
      }
      await finish({
        outcome: 'ok',
        entryMode,
        card: {
          maskedPan: card.maskedPan ?? '476173******0010',
          scheme: card.scheme ?? 'visa',
          expiry: card.expiry ?? '2812',
          // Stand-ins for DUKPT output: random, opaque, never meaningful.
          encryptedData: randomBytes(32).toString('hex').toUpperCase(),
          ksn: 'FFFF9876543210E00001',
        },
        ...(card.onlinePin === true && !keyed
          ? {
              pin: {
                pinblock: randomBytes(8).toString('hex').toUpperCase(),
                ksn: 'FFFF9876543210E00002',
                format: 'ISO0',
              },
            }
          : {}),
        ...(result === 'offlineApproved' ? { offlineApproved: true } : {}),
      });
    } catch {
      // Cancelled: the cancel handler has answered.
    }
  }

  private cancel(m: LinkPayload): void {
    const run = this.running;
    const id = run?.id ?? String(m.id);
    this.stopRunning();
    void this.reply({ type: 'cardResult', id, outcome: 'cancelled', reason: 'cancelled by the terminal' });
  }

  private stopRunning(): void {
    const run = this.running;
    if (!run) return;
    run.finished = true;
    for (const t of run.timers) this.clock.clearTimeout(t);
    run.timers.clear();
    this.running = undefined;
  }

  private wait(run: Running, ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (run.finished) {
        reject(new Error('cancelled'));
        return;
      }
      // A card scripted to be there at once is (a 0 ms timer waits a millisecond or more, which
      // the online-sale bench counted as the reader's time).
      if (ms <= 0) {
        resolve();
        return;
      }
      const t = this.clock.setTimeout(() => {
        run.timers.delete(t);
        if (run.finished) reject(new Error('cancelled'));
        else resolve();
      }, ms);
      run.timers.add(t);
    });
  }
}
