/**
 * What the provider event relay needs of the store that persists delivered platform
 * events (docs/payments.md, "Event relay"): the engine's PaymentService satisfies it, and
 * the relay's tests stand in for it without a journal.
 */

/** The part of a journal row the relay publishes as `transaction.updated`. */
export interface RelayedTransaction {
  clientTransactionId: string;
  serverTransactionId?: string;
  kind: string;
  /** The journal state (approved, declined, cancelled, ...). */
  state: string;
  /** The platform's transactionStatus as last seen. */
  platformStatus?: string;
  amount: number;
  currency: string;
  method?: string;
  message?: string;
  /** Who made the row (a paired register's stream is narrowed by it). */
  operator?: string;
}

/** A transaction whose final status the event relay follows through the status call. */
export interface PendingTracking {
  clientTransactionId: string;
  /**
   * The id the status call is asked with, when not the client id: the server id the
   * platform answered a pending refund or cancel with (the path takes either id).
   */
  statusId?: string;
  merchantId?: string;
  /** QR expiry (the platform's expireTime), when the platform gave one. */
  expireTime?: string;
  startedAt: string;
}

export interface AppliedStatus {
  /** Platform events not delivered before, in order; already persisted in the journal. */
  newEvents: Array<Record<string, unknown>>;
  /** The row after applying the record. */
  view: RelayedTransaction;
  /** No more polling needed: the platform reported a final status. */
  final: boolean;
}

/**
 * The store persists which platform events it has seen, so the relay never puts an event
 * on the bus twice, across restarts too.
 */
export interface RelayStore {
  pendingTracking(): PendingTracking[];
  /** Journals the platform's status record (new events, status) and resolves a waiting sale or operation. */
  applyStatusRecord(clientTransactionId: string, record: Record<string, unknown>): AppliedStatus;
  /**
   * The QR's expiry passed (on the platform's clock) and the platform still reports the
   * payment pending: not an outcome. The store has the platform asked to cancel the payment
   * and keeps the row unresolved ("outcome being checked"); the relay goes on following it
   * until the platform reports it final. Called once per expiry in a run; must be idempotent.
   */
  qrExpired(clientTransactionId: string): RelayedTransaction;
  /**
   * Puts the row on the bus as \`transaction.updated\` (with one platform event it delivered
   * for the first time, if any): what the relay applied and decided to tell.
   */
  announce(clientTransactionId: string, platformEvent?: Record<string, unknown>): void;
  /** Called for each transaction that starts waiting for the platform (e.g. QR shown). */
  onTracking(listener: (t: PendingTracking) => void): () => void;
}
