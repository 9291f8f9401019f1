/**
 * The local API and the counter page (docs/counter-page.md, "Local API and counter page"):
 * the loopback HTTP server, its one table of error statuses, the wire types shared with the
 * page, and the client the CLI and diagnostics use to talk to a running agent.
 */
export { createLocalApi, type LocalApi, type LocalApiOptions } from './local-api.js';
export type { MetricsSource } from './metrics/index.js';
export { offlineApiSource, offlineItemView } from './offline-source.js';
export {
  OFFLINE_ITEM_STATES,
  type DeviceStatusSource,
  type DeviceStatusView,
  type HealthSource,
  type MerchantsSource,
  type MerchantView,
  type OfflineApiSource,
  type OfflineFlushResult,
  type OfflineItemState,
  type OfflineItemView,
  type OfflineLevelsView,
} from './sources.js';
export type { PlatformSignInCallback, PlatformSignInSource, StaffAuthenticator, StaffView } from './staff-source.js';
export { HTTP_STATUS_BY_CODE, httpStatusOf } from './error-status.js';
export { LOCAL_TOKEN_FILE, localTokenPath } from './local-token.js';
export { LocalApiClient, localApiUrl, readLocalToken, type ApiOperationRequest } from './client/local-api-client.js';
export { openApiDocument, openApiText } from './openapi/index.js';
export { IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from './idempotency.js';
export type * from './wire-types.js';
export type * from './report-wire-types.js';
