import type { DeviceName } from '../events/types.js';

/**
 * What the local API reads from the rest of the agent besides the payments engine. The
 * composition root adapts the real components to these small interfaces.
 */

/** Facts behind /readyz and /api/status. */
export interface HealthSource {
  /** A valid device access token is held. */
  tokenHeld(): boolean;
  /** The platform answered recently (isAvailable or a payment call). */
  platformReachable(): boolean;
  /** Offline card sales are enabled and the queue has room. */
  offlineAllowed(): boolean;
  readerConnected(): boolean;
}

/** Offline queue levels as the page shows them (minor units per currency). */
export interface OfflineLevelsView {
  enabled: boolean;
  count: number;
  maxCount: number;
  totals: Record<string, number>;
  maxTotal: Record<string, number>;
  floorLimits?: Record<string, number>;
  /** Creation time of the oldest queued sale (ISO 8601). */
  oldestCreatedAt?: string;
  /** Items the uploader gave up on; someone has to look at them. */
  needsAttention?: number;
  uploading?: boolean;
  lastError?: string;
}

export interface OfflineFlushResult {
  uploaded: number;
  failed: number;
  remaining: number;
}

/** Queue states (src/offline/types.ts QUEUE_STATES). */
export const OFFLINE_ITEM_STATES = ['queued', 'uploading', 'uploaded', 'declined_after_upload', 'needs_attention'] as const;
export type OfflineItemState = (typeof OFFLINE_ITEM_STATES)[number];

/** One offline sale as the local API shows it: no card data, the masked PAN at most. */
export interface OfflineItemView {
  clientTransactionId: string;
  amount: number;
  currency: string;
  maskedPan?: string;
  state: OfflineItemState;
  /** Upload tries of any outcome. */
  attempts: number;
  /** What the last try (or staff) said, e.g. "declined after upload: Insufficient funds". */
  lastMessage?: string;
  storedAt: string;
  serverTransactionId?: string;
  /** The merchant (clientId) the sale was made for, when not the default. */
  merchantId?: string;
}

export interface OfflineApiSource {
  levels(): OfflineLevelsView | Promise<OfflineLevelsView>;
  /** Uploads what is queued now (staff pressed "send now"). */
  flush(): Promise<OfflineFlushResult>;
  /** Items in these states (all when omitted), oldest first. Without it GET /api/offline lists none. */
  items?(states?: readonly OfflineItemState[]): OfflineItemView[] | Promise<OfflineItemView[]>;
  /**
   * Puts a sale needing attention back into the queue (staff fixed the cause). Throws an
   * AgentError: 404 when there is no such item, 409 when it does not need attention.
   */
  requeue?(clientTransactionId: string): OfflineItemView | Promise<OfflineItemView>;
}

/** One merchant this terminal acts for (spec endpoint 3), never its secret. */
export interface MerchantView {
  merchantName: string;
  /** What a sale's `merchantId` names (the platform also accepts the name or its merchant id). */
  clientId: string;
  /** The platform's merchant id, known once a token for the merchant was seen. */
  merchantId?: string;
  /** Sales without a merchant go to this one. */
  default: boolean;
}

export interface MerchantsSource {
  merchants(): MerchantView[];
}

export interface DeviceStatusView {
  device: DeviceName;
  state: 'connected' | 'disconnected' | 'reconnecting' | 'disabled' | 'unknown';
  reason?: string;
  model?: string;
  firmware?: string;
}

export interface DeviceStatusSource {
  devices(): DeviceStatusView[];
}
