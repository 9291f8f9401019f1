import type { OperationKind, SaleMethod, TransactionState, WalletScenario } from '../api.js';

/**
 * Card data exactly as the reader gave it (encrypted by the reader), kept in the journal
 * only while the sale may still need it (in flight, or stored offline until uploaded) and
 * cleared when the row is final. Never logged, never in a TransactionView.
 */
export interface CardSecret {
  encryptedData: string;
  /** KSN of the card data. */
  ksn: string;
  expiry: string;
  pinblock?: string;
  pinKsn?: string;
  pinblockFormat?: string;
}

/** One journal row: one operation (sale, capture, cancel, refund). */
export interface JournalRow {
  clientTransactionId: string;
  kind: OperationKind;
  merchantId: string | undefined;
  amount: number;
  currency: string;
  method: SaleMethod | undefined;
  scenario: WalletScenario | undefined;
  state: TransactionState;
  relatedClientTransactionId: string | undefined;
  entryMode: string | undefined;
  maskedPan: string | undefined;
  scheme: string | undefined;
  platformStatus: string | undefined;
  serverTransactionId: string | undefined;
  events: Array<Record<string, unknown>>;
  qrCode: string | undefined;
  qrExpireTime: string | undefined;
  capturedAmount: number;
  refundedAmount: number;
  cancelledAmount: number;
  /** Requests sent for this operation (a retried write reuses the client id). */
  attempts: number;
  /** clientDateTime sent with the request (the same on every retry and on offline upload). */
  clientDateTime: string;
  cancelReason: 'Technical' | 'Functional' | undefined;
  offline: boolean;
  message: string | undefined;
  cardSecret: CardSecret | undefined;
  /**
   * `web`: a web shop's order this terminal did not make, journaled from the platform's
   * record only so it can be refunded by web (never captured, and left out of the terminal's
   * own totals); absent: made at this terminal.
   */
  origin?: 'web';
  createdAt: string;
  updatedAt: string;
  /** Who made the row: a clerk's username, `cli`, `local-api` or `agent`; undefined on rows from before operators were kept. */
  operator?: string;
  /** The caller's own reference of a sale (docs/local-api.md, "Caller reference"); set at insert only. */
  reference?: string;
  /**
   * The call that carried the row, when it is not the usual one; set at insert only.
   * `qrTerminal`: a merchant-scan sale sent through the terminal QR call, whose client id the
   * payment API is not promised to know (docs/payments.md, "Wallet QR, merchant scan");
   * absent: `process`. `web`: an operation sent through the platform's refundbyweb (the
   * platform picked cancel or refund); its lost answer is settled from the sale acted upon,
   * not by its own id (docs/platform-contract.md, "Decisions where the spec is silent",
   * recognising a refund by web whose answer was lost); absent: the terminal's own call.
   */
  via?: 'qrTerminal' | 'web';
  /** The local-API request that made the row (its X-Request-Id); set at insert only, from the request being served. */
  requestId?: string;
}

export type NewJournalRow = Pick<
  JournalRow,
  'clientTransactionId' | 'kind' | 'amount' | 'currency' | 'state' | 'clientDateTime'
> &
  Partial<
    Omit<
      JournalRow,
      | 'clientTransactionId'
      | 'kind'
      | 'amount'
      | 'currency'
      | 'state'
      | 'clientDateTime'
      | 'createdAt'
      | 'updatedAt'
      | 'operator'
      | 'requestId'
    >
  >;

/** Fields that may change after insert. `undefined` leaves a field as it is; `null` clears it. */
export type JournalPatch = {
  [
    K in Exclude<
      keyof JournalRow,
      'clientTransactionId' | 'kind' | 'createdAt' | 'updatedAt' | 'operator' | 'reference' | 'via' | 'requestId'
    >
  ]?: JournalRow[K] | null;
};

/** States after which the row does not change by itself any more (operations on a sale still add amounts). */
export const FINAL_STATES: ReadonlySet<TransactionState> = new Set([
  'approved',
  'declined',
  'failed',
  'cancelled',
  'reversed',
  'needs_attention',
]);

/** States in which card data may still be needed: before the request left, in flight, stored offline. */
export const CARD_DATA_STATES: ReadonlySet<TransactionState> = new Set([
  'created',
  'awaiting_customer',
  'in_flight',
  'offline_stored',
]);
