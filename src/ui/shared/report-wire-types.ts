/**
 * Receipts and the end-of-day report as they travel (JSON), for the server, the CLI and
 * the counter page (docs/receipts.md). Types only, like wire-types.ts: the page's build
 * compiles this file too. Amounts are integer minor units with their currency and minor
 * digits; a card is never more than its last four digits.
 */
import type { ApiOperationKind, ApiSaleMethod, ApiTransactionState, ApiWalletScenario } from './wire-types.js';

export type ApiReceiptCopy = 'customer' | 'merchant';
export type ApiPrinterWidth = 32 | 48;

export interface ApiReceiptAmount {
  minor: number;
  currency: string;
  minorDigits: number;
  /** Major units without the currency, "12.34". */
  text: string;
}

export type ApiReceiptOutcomeCode =
  'approved' | 'approved_offline' | 'declined' | 'not_completed' | 'cancelled' | 'reversed' | 'check_needed';

/** GET /api/v1/transactions/{id}/receipt?format=json */
export interface ApiReceipt {
  copy: ApiReceiptCopy;
  kind: ApiOperationKind;
  /** The locale the words are in (the reader's: docs/receipts.md, "Language and time zone"). */
  locale: string;
  title: string;
  merchant: { name: string; id: string | null };
  terminalId: string | null;
  operator: string | null;
  /** ISO parts for programs; dateText, timeText and zoneName as printed ("28.11.2026", "18:18:05", "MEZ"). */
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
  amount: ApiReceiptAmount;
  method: ApiSaleMethod | null;
  methodText: string | null;
  scenario: ApiWalletScenario | null;
  card: {
    scheme: string | null;
    last4: string | null;
    masked: string | null;
    entryMode: string | null;
    entryModeText: string | null;
  } | null;
  serverTransactionId: string | null;
  clientTransactionId: string;
  originalSale: { serverTransactionId: string | null; clientTransactionId: string; amount: ApiReceiptAmount } | null;
  offline: boolean;
  outcome: { state: ApiTransactionState; code: ApiReceiptOutcomeCode; text: string; detail: string | null };
  merchantNotes: { message: string | null; platformStatus: string | null } | null;
  footer: string;
}

export interface ApiReceiptAnswer {
  receipt: ApiReceipt;
}

export interface ApiFigure {
  count: number;
  /** Minor units. */
  amount: number;
}

export interface ApiEndOfDayLine {
  currency: string;
  minorDigits: number;
  sales: ApiFigure;
  refunds: ApiFigure;
  cancels: ApiFigure;
  captures: ApiFigure;
  offlinePending: ApiFigure;
  needsAttention: ApiFigure;
  inProgress: ApiFigure;
  notCompleted: ApiFigure;
  /** sales - refunds - cancels, minor units. */
  net: number;
}

/** GET /api/v1/reports/end-of-day?format=json */
export interface ApiEndOfDay {
  date: string;
  timeZone: string;
  /** The locale the printer text is written in. */
  locale: string;
  from: string;
  to: string;
  fromLocal: string;
  toLocal: string;
  generatedAt: string;
  generatedAtLocal: string;
  terminalId: string | null;
  rows: number;
  totals: ApiEndOfDayLine[];
  byMerchant: Array<ApiEndOfDayLine & { merchantId: string | null; merchantName: string | null }>;
  byMethod: Array<ApiEndOfDayLine & { method: ApiSaleMethod | null }>;
  byOperator: Array<ApiEndOfDayLine & { operator: string | null }>;
  groups: Array<
    ApiEndOfDayLine & {
      merchantId: string | null;
      merchantName: string | null;
      method: ApiSaleMethod | null;
      operator: string | null;
    }
  >;
}

export interface ApiEndOfDayAnswer {
  endOfDay: ApiEndOfDay;
}
