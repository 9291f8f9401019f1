import type { ErrorCodes } from '../core/index.js';
import type { Config } from '../config/index.js';
import type { JournalRow } from '../payments/index.js';
import type { ProcessRequest } from '../platform/index.js';

export type OfflineConfig = Config['offline'];

/**
 * Queue states: `queued` waits for upload; `uploading` may have been sent (a crash or an
 * unknown outcome: looked up by client id before it is sent again); `uploaded` is at the
 * platform; `declined_after_upload` the platform refused it after the customer left;
 * `needs_attention` was refused `offline.maxAttempts` times and waits for staff.
 */
export const QUEUE_STATES = ['queued', 'uploading', 'uploaded', 'declined_after_upload', 'needs_attention'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** Not yet confirmed by the platform: these count towards the offline limits. */
export const STORED_STATES: readonly QueueState[] = ['queued', 'uploading', 'needs_attention'];
/** Waiting for the uploader. */
export const PENDING_STATES: readonly QueueState[] = ['queued', 'uploading'];

export type AttemptOutcome =
  /** Platform answered the upload with an approved record. */
  | 'accepted'
  /** Platform answered the upload with a refused record. */
  | 'declined'
  /** Platform refused the request itself (4xx): counts towards maxAttempts. */
  | 'rejected'
  /** Not reached, 5xx, timeout, or auth trouble: tried again later, not counted. */
  | 'unavailable'
  /** The request may have arrived: looked up before it is sent again. */
  | 'unknown'
  /** A lookup by client id found the sale at the platform. */
  | 'found'
  /** A lookup by client id found nothing: safe to send. */
  | 'not_found'
  /** Staff put an item needing attention back into the queue. */
  | 'requeued';

/** One line of an item's history; `message` never carries card data. */
export interface UploadAttempt {
  at: string;
  outcome: AttemptOutcome;
  status?: number;
  message?: string;
}

/** An item as shown to people and programs: no card data, the masked PAN at most. */
export interface QueueItem {
  clientTransactionId: string;
  merchantId?: string;
  amount: number;
  currency: string;
  /** The sale's original clientDateTime, sent unchanged on upload. */
  clientDateTime: string;
  maskedPan?: string;
  scheme?: string;
  entryMode?: string;
  state: QueueState;
  /** Refusals counted towards offline.maxAttempts. */
  rejections: number;
  /** Upload tries of any outcome. */
  tries: number;
  history: UploadAttempt[];
  serverTransactionId?: string;
  platformStatus?: string;
  message?: string;
  storedAt: string;
  updatedAt: string;
  lastTryAt?: string;
  /** Card data still held for the upload. */
  holdsCardData: boolean;
  /** Who made the sale (its journal row's operator), in lists. */
  operator?: string;
}

/** Totals of what is stored and not yet confirmed, the input of the limit checks. */
export interface QueueStats {
  count: number;
  totals: Record<string, number>;
  oldest?: { clientTransactionId: string; storedAtMs: number };
}

export type PlatformState = 'online' | 'offline' | 'unknown';

/** How close the terminal is to each offline limit (a ratio of 1 = the limit). */
export type OfflineLevels = {
  enabled: boolean;
  platform: PlatformState;
  count: { stored: number; max: number; ratio: number };
  totals: Array<{
    currency: string;
    stored: number;
    max: number | null;
    ratio: number | null;
    floorLimit: number | null;
  }>;
  age: {
    oldestClientTransactionId: string | null;
    oldestStoredAt: string | null;
    oldestAgeMs: number | null;
    maxAgeMs: number;
    ratio: number;
  };
  states: Record<QueueState, number>;
  at: string;
};

/**
 * What the offline policy sees of a card sale the platform could not be reached for
 * (payments' `OfflineCandidate`).
 */
export interface OfflineCandidate {
  sale: Pick<JournalRow, 'clientTransactionId' | 'kind' | 'method' | 'amount' | 'currency' | 'merchantId'>;
  entryMode: string;
  maskedPan: string;
  scheme: string;
  /** The reader approved the sale offline. */
  offlineApproved: boolean;
}

/** A sale to store (payments' `OfflineSale`). */
export interface OfflineSale {
  /** The journal row, already `offline_stored` inside the same transaction. */
  row: Pick<
    JournalRow,
    | 'clientTransactionId'
    | 'kind'
    | 'method'
    | 'amount'
    | 'currency'
    | 'merchantId'
    | 'clientDateTime'
    | 'entryMode'
    | 'maskedPan'
    | 'scheme'
    | 'operator'
  >;
  /** The process body the sale would have sent online. */
  body: ProcessRequest;
}

export type OfflineDecision =
  | { ok: true }
  | { ok: false; reason: string; code: typeof ErrorCodes.OFFLINE_LIMIT | typeof ErrorCodes.OFFLINE_NOT_ELIGIBLE };
