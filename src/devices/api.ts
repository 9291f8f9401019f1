/**
 * What the rest of the agent sees of the peripherals (docs/serial-protocol.md, "Messages").
 * The payments layer depends on these interfaces only; src/devices implements them over
 * serial ports and src/sim/devices simulates the hardware behind the same ports.
 */

export type EntryMode = 'ContactChip' | 'ContactlessChip' | 'Magstripe' | 'Keyed';

export interface CardData {
  maskedPan: string;
  scheme: string;
  expiry: string;
  /** Opaque, encrypted by the reader (DUKPT). Never logged, never shown. */
  encryptedData: string;
  ksn: string;
}

export interface PinData {
  /** Opaque, encrypted by the reader. Never logged, never shown. */
  pinblock: string;
  ksn: string;
  format: string;
}

/**
 * Why the agent ended a card read itself, the reader having failed mid-payment
 * (docs/serial-protocol.md, "Decisions", reader liveness): `reason` is then the agent's
 * own sentence for the clerk, not something the reader reported.
 */
export type ReaderFault = 'stopped_answering' | 'damaged_messages';

export type CardResult =
  | {
      outcome: 'ok';
      entryMode: EntryMode;
      card: CardData;
      pin?: PinData;
      /** the reader approved offline */ offlineApproved?: boolean;
    }
  | { outcome: 'cancelled' | 'timeout' | 'declined' | 'error'; reason: string; fault?: ReaderFault };

export interface ReadCardRequest {
  amount: number;
  currency: string;
  entryModes: EntryMode[];
  offlineAllowed: boolean;
  /** Journal id of the sale, for progress events. */
  clientTransactionId?: string;
  /** Aborting sends `cancel` to the reader; the promise then resolves with outcome cancelled. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface DeviceInfo {
  model: string;
  serialNumber?: string;
  firmware?: string;
  capabilities?: string[];
  width?: number;
  height?: number;
}

export interface CardReader {
  /** Asks for a card; never hangs: a timeout cancels the reader and resolves with outcome timeout. */
  readCard(req: ReadCardRequest): Promise<CardResult>;
  showResult(approved: boolean, text: string): Promise<void>;
  readonly connected: boolean;
  readonly info: DeviceInfo | undefined;
}

export interface ShowQrOptions {
  /** Journal id of the sale, for the `display.qr` event. */
  clientTransactionId?: string;
  /** QR expiry as the platform gave it, for the counter page. */
  expireTime?: string;
}

export interface CustomerDisplay {
  /**
   * Renders `codeValue` as a QR code (error correction M) and sends the module matrix.
   * `display.qr` (with an SVG) goes on the bus first, so the counter page shows the code
   * even when the display is away; then rejects with DEVICE_DISCONNECTED / DEVICE_TIMEOUT.
   */
  showQr(codeValue: string, caption: string, opts?: ShowQrOptions): Promise<void>;
  showText(lines: string[]): Promise<void>;
  clear(): Promise<void>;
  readonly connected: boolean;
}

export interface BarcodeScanner {
  /** The next scanned line; rejects with DEVICE_TIMEOUT after timeoutMs or when aborted. */
  nextScan(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<string>;
  readonly connected: boolean;
}

export interface Peripherals {
  reader: CardReader;
  display: CustomerDisplay;
  scanner: BarcodeScanner;
}
