import type { AppliedStatus as RelayAppliedStatus, RelayStore as EventsRelayStore } from './relay/index.js';
/**
 * What the local API, the CLI and the event relay see of payments. PaymentService
 * (src/payments/) implements PaymentsApi; the local API (src/ui/) calls it and nothing else.
 * Amounts are integer minor units of the currency (ISO 4217).
 */

export type SaleMethod = 'card' | 'manual' | 'moto' | 'walletA' | 'walletB';
export type WalletScenario = 'ConsumerScan' | 'MerchantScan';
export type OperationKind = 'sale' | 'capture' | 'cancel' | 'refund';
/**
 * Which platform call carries a sale: `process`, or for a wallet merchant scan the terminal
 * QR call POST /qrcode-payment/v1/transactions (docs/platform-contract.md, "Endpoints").
 */
export type SaleVia = 'process' | 'qrTerminal';

/** The order sent with the terminal QR call (docs/platform-contract.md, "Endpoints"). */
export interface SaleOrder {
  orderId: string;
  /** Default: empty. */
  orderDescription?: string;
}

/**
 * Journal states. `in_flight`: the request may have left (outcome unknown until resolved);
 * `awaiting_customer`: a wallet QR is shown or a scan/card is awaited; `offline_stored`:
 * approved offline by the reader, in the queue; `reversing`: a reversal is being retried;
 * `pending`: a refund or cancel the platform answered with a status that is not final yet,
 * followed by the event relay until it is.
 */
export type TransactionState =
  | 'created'
  | 'awaiting_customer'
  | 'in_flight'
  | 'pending'
  | 'approved'
  | 'declined'
  | 'failed'
  | 'cancelled'
  | 'reversing'
  | 'reversed'
  | 'offline_stored'
  | 'needs_attention';

export interface MotoDetails {
  /** With address verification (AVS). */
  orderChannel?: string;
  zipCode?: string;
  houseNumber?: string;
  /** Without address verification: one of these. */
  email?: string;
  phone?: string;
}

export interface SaleRequest {
  method: SaleMethod;
  /** Wallets only. */
  scenario?: WalletScenario;
  amount: number;
  currency: string;
  /** Merchant to sell for, when the terminal serves several (default: the configured one). */
  merchantId?: string;
  moto?: MotoDetails;
  /** Merchant scan: the customer's code when already known (otherwise the scanner is awaited). */
  walletId?: string;
  /** Default `process`; `qrTerminal` only for a walletA / walletB merchant scan. */
  via?: SaleVia;
  /** Terminal QR call only; default order id: the sale's client transaction id. */
  order?: SaleOrder;
  /**
   * The caller's own reference (a cash register's receipt or order number), kept with the
   * sale and searchable (docs/local-api.md, "Caller reference"); 1 to 64 printable characters.
   */
  reference?: string;
}

export interface RefundRequest {
  /** Default: everything still refundable. */
  amount?: number;
  approvalCode?: string;
  /** Retry of an earlier refund: its client transaction id (the platform answers the existing refund). */
  clientTransactionId?: string;
}

export interface CancelRequest {
  /** Default: the full remaining amount. */
  amount?: number;
  reason?: 'Technical' | 'Functional';
  approvalCode?: string;
}

/** Cancel or refund by web: the platform picks which; no approval code applies. */
export interface RefundByWebRequest {
  /** Default: the full remaining amount (cancellable, else refundable). */
  amount?: number;
  /**
   * The merchant whose token looks up and gives back a web order the journal does not hold
   * (clientId, merchant name or platform merchant id; default the default merchant). A sale
   * in the journal goes with its own merchant (docs/platform-contract.md, "Decisions where the spec is silent", refund by web).
   */
  merchantId?: string;
}

export interface CaptureRequest {
  /** Default: the full authorized amount. */
  amount?: number;
}

export interface QrInfo {
  codeValue: string;
  expireTime?: string;
}

/** A journal row as shown to people and programs: never card data beyond the masked PAN. */
export interface TransactionView {
  clientTransactionId: string;
  serverTransactionId?: string;
  kind: OperationKind;
  method?: SaleMethod;
  scenario?: WalletScenario;
  merchantId?: string;
  amount: number;
  currency: string;
  state: TransactionState;
  /** The platform's transactionStatus as last seen (Accepted, Captured, Initialized, cancelled, ...). */
  platformStatus?: string;
  /** Sale this operation acts on (cancel, refund, capture). */
  relatedClientTransactionId?: string;
  maskedPan?: string;
  scheme?: string;
  entryMode?: string;
  offline: boolean;
  /** `web`: a web shop's order journaled for its refund by web, not a sale of this terminal (left out of its totals). */
  origin?: 'web';
  /** Why it was declined / failed / needs attention, in words a person can act on. */
  message?: string;
  /** Who made the row: a clerk's username, `cli`, `local-api` or `agent` (docs/journal.md, "Journal"). */
  operator?: string;
  /** The local-API request that made the row (docs/operations.md, "Logs"). */
  requestId?: string;
  /** An operation's row (cancel, refund, capture): how many times it was sent to the platform; a reversal counts its retries here. */
  attempts?: number;
  qr?: QrInfo;
  capturedAmount: number;
  refundedAmount: number;
  cancelledAmount: number;
  createdAt: string;
  updatedAt: string;
  /** Platform events seen, in order. */
  events: Array<Record<string, unknown>>;
  /** The caller's reference given with the sale (docs/local-api.md, "Caller reference"). */
  reference?: string;
  /**
   * A sale whose outcome is unknown and being asked of the platform (its answer lost, a QR
   * call not answered, a QR expired): do not repeat it, do not hand over the goods yet
   * (src/payments/checking.ts). Absent otherwise, also while a sale waits for its answer.
   */
  outcomeBeingChecked?: true;
}

/**
 * Why an operation is not allowed, as a stable code beside the English `reason` sentence, so
 * callers and the counter page can say it in their own words (docs/local-api.md, "Allowed
 * operations"). Named like the error codes (docs/architecture.md, "Errors"): a code is never
 * renamed or reused; a new case gets a new code.
 */
export const OPERATION_REASON_CODES = [
  'NOT_A_SALE',
  'NOT_UPLOADED',
  'NOT_APPROVED',
  'CAPTURED_REFUND_INSTEAD',
  'CANCEL_WINDOW_ENDED',
  'NOTHING_LEFT_TO_CANCEL',
  'NOT_CAPTURED_CANCEL_INSTEAD',
  'REFUND_WINDOW_ENDED',
  'NOTHING_LEFT_TO_REFUND',
  'NOT_A_CARD_SALE',
  'ALREADY_CAPTURED',
  'CAPTURE_UNDER_WAY',
  'NOTHING_LEFT_TO_CAPTURE',
  'PLATFORM_NOT_ALLOWED',
] as const;

export type OperationReasonCode = (typeof OPERATION_REASON_CODES)[number];

/**
 * Why a cancel, refund or capture that was sent was refused: the allowed-operations codes, and
 * those only the attempt itself can learn (docs/local-api.md, "Allowed operations"): the
 * platform asked for a supervisor approval code or found the one given wrong (the code is the
 * merchant aggregator's rule, known to the platform alone), or the amount typed is more than is
 * left. They travel as `reasonCode` in the error answer, so a caller says them in its own words.
 */
export const REFUSAL_REASON_CODES = [
  ...OPERATION_REASON_CODES,
  'APPROVAL_CODE_REQUIRED',
  'APPROVAL_CODE_INCORRECT',
  'AMOUNT_ABOVE_LEFT',
] as const;

export type RefusalReasonCode = (typeof REFUSAL_REASON_CODES)[number];

/** One operation: allowed up to `maxAmount`, or not, with the reason as a sentence and as a code. */
export interface AllowedOperationView {
  allowed: boolean;
  maxAmount: number;
  reason?: string;
  reasonCode?: OperationReasonCode;
}

export interface AllowedOperationsView {
  cancel: AllowedOperationView;
  refund: AllowedOperationView;
  capture: AllowedOperationView;
  currency: string;
  /** Whether the platform's allowedoperations answer was used (else local rules only). */
  fromPlatform: boolean;
}

export interface StartedSale {
  clientTransactionId: string;
  /** Resolves with the final view (approved, declined, failed, cancelled, offline_stored ...). */
  done: Promise<TransactionView>;
}

export interface ListQuery {
  /** ISO date (YYYY-MM-DD, local time of the terminal); default all. */
  date?: string;
  /** Only rows this operator made. */
  operator?: string;
  /** Only rows carrying exactly this caller reference. */
  reference?: string;
  /** The client id of the last row of the page before: the rows after it (newest first). */
  after?: string;
  limit?: number;
}

export interface PaymentsApi {
  /** Journals the sale, then runs it (reader / QR / scanner / platform). Rejects only on invalid input. */
  startSale(req: SaleRequest): Promise<StartedSale>;
  /** Aborts a sale still waiting for the customer (card, QR, scan). */
  abortSale(clientTransactionId: string): Promise<TransactionView>;
  cancel(clientTransactionId: string, req?: CancelRequest): Promise<TransactionView>;
  refund(clientTransactionId: string, req?: RefundRequest): Promise<TransactionView>;
  /** Cancel or refund by web (docs/platform-contract.md, "Endpoints"): the platform picks which; answers the operation's row. */
  refundByWeb(clientTransactionId: string, req?: RefundByWebRequest): Promise<TransactionView>;
  capture(clientTransactionId: string, req?: CaptureRequest): Promise<TransactionView>;
  captureAll(merchantId?: string): Promise<TransactionView[]>;
  allowedOperations(clientTransactionId: string): Promise<AllowedOperationsView>;
  /**
   * Local view, refreshed from the platform's status call when `refresh` is set. An id the
   * journal does not know is asked of the platform with `merchantId`'s token (default merchant when absent),
   * unless `journalOnly` (PAYMENT_NOT_FOUND).
   */
  get(
    clientTransactionId: string,
    opts?: { refresh?: boolean; merchantId?: string; journalOnly?: boolean },
  ): Promise<TransactionView>;
  list(query?: ListQuery): TransactionView[];
}

export type { PendingTracking } from './relay/index.js';

/** The relay's AppliedStatus with the full local view (docs/payments.md, "Event relay"). */
export interface AppliedStatus extends RelayAppliedStatus {
  view: TransactionView;
}

/**
 * The relay store the events folder defines, as PaymentService implements it: the same
 * calls answered with full transaction views.
 */
export interface RelayStore extends EventsRelayStore {
  applyStatusRecord(clientTransactionId: string, record: Record<string, unknown>): AppliedStatus;
  qrExpired(clientTransactionId: string): TransactionView;
}
