import type {
  ApiPlatformStatus,
  ApiDeviceStatus,
  ApiReadinessCheck,
  ApiMerchant,
  ApiOfflineFlushResult,
  ApiOfflineItem,
  ApiOfflineItemState,
  ApiOfflineLevels,
} from './wire-types.js';

/**
 * What the local API reads from the rest of the agent besides the payments engine. The
 * composition root adapts the real components to these small interfaces.
 */

/** Facts behind /readyz and /api/v1/status. */
export interface HealthSource {
  /** A valid device access token is held. */
  tokenHeld(): boolean;
  /** The platform is online as the agent's PlatformWatch sees it (its last call answered, or isAvailable said 200). */
  platformReachable(): boolean;
  /** The watch's view, with why it is offline and since when (GET /api/v1/status `platform`). */
  platform?(): ApiPlatformStatus;
  /** Offline card sales are enabled and the queue has room. */
  offlineAllowed(): boolean;
  readerConnected(): boolean;
  /**
   * The journal takes writes and the data directory has its free-space margin
   * (docs/operations.md, "Health endpoints"); each check says why when it fails.
   */
  storage?(): { journal: ApiReadinessCheck; disk: ApiReadinessCheck };
}

/** Offline queue levels as a source hands them over; the API adds the texts (api-views.ts). */
export type OfflineLevelsView = Omit<ApiOfflineLevels, 'totalsText' | 'maxTotalText' | 'floorLimitsText'>;

export type OfflineFlushResult = ApiOfflineFlushResult;

/** Queue states (src/offline/types.ts QUEUE_STATES). */
export const OFFLINE_ITEM_STATES = [
  'queued',
  'uploading',
  'uploaded',
  'declined_after_upload',
  'needs_attention',
] as const satisfies readonly ApiOfflineItemState[];
export type OfflineItemState = ApiOfflineItemState;

/** One offline sale as a source hands it over; the API adds the amount text. */
export type OfflineItemView = Omit<ApiOfflineItem, 'amountText'>;

/** One page of the queue's list: the items after `after` (a client transaction id), at most `limit`. */
export interface OfflineItemsPage {
  after?: string;
  limit?: number;
}

export interface OfflineApiSource {
  levels(): OfflineLevelsView | Promise<OfflineLevelsView>;
  /** Uploads what is queued now (staff pressed "send now"). */
  flush(): Promise<OfflineFlushResult>;
  /**
   * Items in these states (all when omitted), oldest first; with `page`, at most `limit` of
   * them after the item `after` in that order (docs/local-api.md, "Paging"): an `after` the
   * queue does not hold throws an AgentError answered 400. Without it GET /api/v1/offline lists none.
   */
  items?(states?: readonly OfflineItemState[], page?: OfflineItemsPage): OfflineItemView[] | Promise<OfflineItemView[]>;
  /**
   * Puts a sale needing attention back into the queue (staff fixed the cause). Throws an
   * AgentError: 404 when there is no such item, 409 when it does not need attention.
   */
  requeue?(clientTransactionId: string): OfflineItemView | Promise<OfflineItemView>;
}

export type MerchantView = ApiMerchant;

export interface MerchantsSource {
  merchants(): MerchantView[];
}

export type DeviceStatusView = ApiDeviceStatus;

export interface DeviceStatusSource {
  devices(): DeviceStatusView[];
}
