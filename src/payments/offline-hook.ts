import type { CardData, EntryMode, PinData } from '../devices/index.js';
import type { ProcessRequest } from '../platform/index.js';
import type { JournalRow } from './journal/index.js';

/** What the offline policy sees of a card sale the platform could not be reached for. */
export interface OfflineCandidate {
  sale: JournalRow;
  entryMode: EntryMode;
  maskedPan: string;
  scheme: string;
  /** The reader approved the sale offline (its risk management allowed it). */
  offlineApproved: boolean;
}

export interface OfflineSale {
  /** The journal row, already `offline_stored` inside the same transaction. */
  row: JournalRow;
  /** The exact process body the sale would have sent; upload it with `offlineTransaction: true`. */
  body: ProcessRequest;
  card: CardData;
  pin?: PinData;
}

export type OfflineDecision = { ok: true } | { ok: false; reason: string };

/**
 * Implemented by the offline store-and-forward queue (src/offline/). PaymentService
 * asks `eligible` when a card sale's process call never reached the platform, and calls
 * `store` inside the SQLite transaction that marks the journal row `offline_stored`
 * (docs/architecture.md, "Invariants": on disk before the customer is told it is approved).
 * The queue's table lives in the journal's file, so its insert joins that transaction; `store`
 * must be synchronous, and throwing rolls the journal update back and the sale fails instead.
 */
export interface OfflineHook {
  /** Before the card is read: may this sale still go offline (limits, currency)? Tells the reader `offlineAllowed`. */
  allowed?(sale: Pick<JournalRow, 'kind' | 'method' | 'amount' | 'currency'>): OfflineDecision;
  eligible(candidate: OfflineCandidate): OfflineDecision;
  store(sale: OfflineSale): void;
}
