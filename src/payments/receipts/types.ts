import type { OperationKind, SaleMethod, TransactionState, WalletScenario } from '../api.js';

/**
 * Receipts and the end-of-day report as data (docs/receipts.md). The local API answers
 * these as JSON; the printer text and CSV are laid out from them alone, so every format
 * says the same. Amounts are integer minor units with their currency; card data is the
 * last four digits of the masked PAN at most.
 */

export type ReceiptCopy = 'customer' | 'merchant';
export type PrinterWidth = 32 | 48;
export const PRINTER_WIDTHS: readonly PrinterWidth[] = [32, 48];

export interface ReceiptAmount {
  /** Minor units (ISO 4217): 1234 for 12.34 EUR. */
  minor: number;
  currency: string;
  /** Minor digits of the currency (EUR 2, JPY 0, KWD 3). */
  minorDigits: number;
  /** Major units as text without the currency: "12.34". */
  text: string;
}

/** What a receipt says of the outcome: a word for the printer and a sentence for people. */
export type ReceiptOutcomeCode =
  'approved' | 'approved_offline' | 'declined' | 'not_completed' | 'cancelled' | 'reversed' | 'check_needed';

export interface ReceiptData {
  copy: ReceiptCopy;
  kind: OperationKind;
  /** The reader's locale the words are in (docs/receipts.md, "Language and time zone"). */
  locale: string;
  /** SALE, REFUND, CANCELLATION, REVERSAL or CAPTURE, in the locale's words (ZAHLUNG, GUTSCHRIFT, …). */
  title: string;
  merchant: { name: string; id: string | null };
  terminalId: string | null;
  /** Who made the row: a clerk's username, `cli`, `local-api` or `agent`; null for rows from before operators were kept. */
  operator: string | null;
  /**
   * When the operation was made (its clientDateTime), in the reader's zone and in UTC: ISO
   * parts for programs (`local`, `date`, `time`, `offset`), and as the reader reads it
   * (`dateText` 28.11.2026, `timeText` 18:18:05, `zoneName` MEZ): what is printed.
   */
  dateTime: {
    local: string;
    date: string;
    time: string;
    offset: string;
    timeZone: string;
    utc: string;
    dateText: string;
    timeText: string;
    zoneName: string;
  };
  amount: ReceiptAmount;
  method: SaleMethod | null;
  /** Card, Manual entry, MOTO, walletA, walletB (in the locale's words). */
  methodText: string | null;
  scenario: WalletScenario | null;
  /** Present for card methods when the reader gave a masked PAN: never more than the last four digits. */
  card: {
    scheme: string | null;
    last4: string | null;
    masked: string | null;
    entryMode: string | null;
    entryModeText: string | null;
  } | null;
  serverTransactionId: string | null;
  clientTransactionId: string;
  /** Capture, cancel and refund: the sale they act on. */
  originalSale: { serverTransactionId: string | null; clientTransactionId: string; amount: ReceiptAmount } | null;
  /** Stored offline (approved by the reader, uploaded later) or uploaded after being stored. */
  offline: boolean;
  outcome: { state: TransactionState; code: ReceiptOutcomeCode; text: string; detail: string | null };
  /** Merchant copy only: the journal's message and the platform's status word. */
  merchantNotes: { message: string | null; platformStatus: string | null } | null;
  /** The closing line of the copy. */
  footer: string;
}

/** Count and sum (minor units) of one figure. */
export interface Figure {
  count: number;
  amount: number;
}

export interface EndOfDayFigures {
  /** Sales charged (approved, or charged and then given back: the cancels and refunds say how much). */
  sales: Figure;
  /** Refunds done. */
  refunds: Figure;
  /** Cancels and reversals done. */
  cancels: Figure;
  /** Captures of one sale done (not capture-all calls). */
  captures: Figure;
  /** Sales approved offline by the reader and not yet uploaded. */
  offlinePending: Figure;
  /** Rows the agent cannot settle alone. */
  needsAttention: Figure;
  /** Rows not final yet (waiting for the customer, in flight, reversing, pending at the platform). */
  inProgress: Figure;
  /** Sales declined, failed, aborted or reversed with nothing charged. */
  notCompleted: Figure;
  /** sales - refunds - cancels, minor units (may be negative). */
  net: number;
}

export interface EndOfDayLine extends EndOfDayFigures {
  currency: string;
  minorDigits: number;
}

export interface EndOfDayGroup extends EndOfDayLine {
  merchantId: string | null;
  merchantName: string | null;
  method: SaleMethod | null;
  operator: string | null;
}

export interface EndOfDayReport {
  /** The local day, YYYY-MM-DD. */
  date: string;
  timeZone: string;
  /** The reader's locale the printer text is written in (docs/receipts.md, "Language and time zone"). */
  locale: string;
  /** The day as UTC instants, half-open: from <= created < to. */
  from: string;
  to: string;
  /** The same bounds in the zone (a clock change shows as a different offset). */
  fromLocal: string;
  toLocal: string;
  generatedAt: string;
  /** generatedAt in the zone. */
  generatedAtLocal: string;
  terminalId: string | null;
  /** Journal rows made that day (web shops' orders included, though not counted). */
  rows: number;
  /** Per currency, everything. */
  totals: EndOfDayLine[];
  byMerchant: Array<EndOfDayLine & { merchantId: string | null; merchantName: string | null }>;
  byMethod: Array<EndOfDayLine & { method: SaleMethod | null }>;
  byOperator: Array<EndOfDayLine & { operator: string | null }>;
  /** Per merchant, method, operator and currency: what the CSV has, one line each. */
  groups: EndOfDayGroup[];
}

/** One merchant of the terminal as receipts name it (the auth service's list, without secrets). */
export interface ReceiptMerchant {
  merchantName: string;
  clientId: string;
  merchantId?: string;
  default: boolean;
}

/** What receipts and the report read besides the journal; the composition root provides them. */
export interface ReportSources {
  merchants(): readonly ReceiptMerchant[];
  /** The terminal's serial number (device certificate), when known. */
  terminalId(): string | undefined;
}

/** The signed-in clerk's token claims (`locale`, `zoneinfo`), when a clerk asks. */
export interface ReaderClaims {
  locale?: string;
  timeZone?: string;
}

export interface ReceiptQuery {
  copy?: ReceiptCopy;
  clerk?: ReaderClaims;
}

export interface EndOfDayQuery {
  /** YYYY-MM-DD; default today in the zone. */
  date?: string;
  /** IANA name; default the reader's zone (receipts.timeZone, the clerk's, api.timeZone, the terminal's). */
  timeZone?: string;
  clerk?: ReaderClaims;
}

/** Receipts and end of day, as the local API calls them. */
export interface ReportsApi {
  /** A final transaction's receipt; PAYMENT_STATE (409) for one not final yet, PAYMENT_NOT_FOUND for one not in the journal. */
  receipt(id: string, query?: ReceiptQuery): ReceiptData;
  endOfDay(query?: EndOfDayQuery): EndOfDayReport;
}
