import type { SeedMerchant } from '../seed.js';
import type { Amount } from './money.js';

/**
 * The platform's published states are Initialized, Accepted and cancelled (lowercase);
 * Refused, Captured, Failed and Expired are the agent's decisions for card sales and
 * wallet outcomes (docs/platform-contract.md, "Decisions where the spec is silent");
 * Pending is how an older strict profile answered a refund that completes later (kept for its ledger files).
 */
export type TransactionStatus =
  'Initialized' | 'Pending' | 'Accepted' | 'Captured' | 'Refused' | 'Failed' | 'Expired' | 'cancelled';
export type TransactionType = 'Payment' | 'Cancel' | 'Refund';
export type InstrumentType = 'card' | 'walletA' | 'walletB';
export type WalletType = Exclude<InstrumentType, 'card'>;

/** Event of a transaction record; which fields appear depends on eventType (docs/platform-contract.md, "Decisions where the spec is silent", card events). */
export interface TransactionEvent {
  eventType: string;
  serverProcessingDateTime: string;
  [field: string]: unknown;
}

export interface TransactionSource {
  sourceType: 'instore';
  storeId: string;
  logicalDeviceId: string;
  physicalDeviceId: string;
}

/** The payment transaction record (docs/platform-contract.md, "Tolerance of answers"). */
export interface TransactionRecord {
  transactionType: TransactionType;
  serverTransactionId: string;
  clientTransactionId: string;
  relatedServerTransactionId?: string;
  transactionStatus: TransactionStatus;
  tenantId: string;
  merchantAggregatorId: string;
  merchantId: string;
  events: TransactionEvent[];
}

/** Who is calling: the merchant of the token and the seeded terminal it runs on. */
export interface Caller {
  merchant: SeedMerchant;
  tenantId: string;
  approvalCode: string | null;
  source: TransactionSource;
}

/** A pending wallet outcome the provider will deliver by itself (consumer scan, walletB merchant scan). */
export interface PendingWallet {
  /** Platform time at which the consumer pays; undefined = only on a control call. */
  payAt: number | undefined;
  /** Platform time at which the QR code expires; undefined = never. */
  expireAt: number | undefined;
  /**
   * Platform time from which the consumer is completing the payment at the provider, which
   * has not told the platform yet: a cancel is refused from then on (strict profile, late
   * payment: docs/demo-platform.md, "Demo platform").
   */
  refusesCancelFrom?: number;
}

/** The platform's state of one transaction; `record` is what the API answers. */
export interface SimTransaction {
  record: TransactionRecord;
  merchant: SeedMerchant;
  caller: Caller;
  instrumentType: InstrumentType;
  paymentScenario: string | undefined;
  /** Authorized amount (Payment), cancelAmount (Cancel) or refundAmount (Refund). */
  amount: Amount;
  /** Platform time of creation: the start of cancel and refund windows. */
  createdAt: number;
  /** What makes a repeated clientNewTransactionId "the same" request (idempotency). */
  fingerprint: string;
  /** Payment only: money moved so far, in minor units. */
  captured: number;
  cancelled: number;
  refunded: number;
  /** Wallet payments: the provider's payment id. */
  paymentId: string | undefined;
  pending: PendingWallet | undefined;
  /** Cancel and Refund records: the payment acted upon. */
  related: SimTransaction | undefined;
  /** Payment only: its Cancel and Refund records, in order. */
  children: SimTransaction[];
}
