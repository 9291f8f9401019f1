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

export interface OfflineApiSource {
  levels(): OfflineLevelsView | Promise<OfflineLevelsView>;
  /** Uploads what is queued now (staff pressed "send now"). */
  flush(): Promise<OfflineFlushResult>;
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
