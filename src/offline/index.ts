export {
  createOffline,
  type Offline,
  type OfflineDeps,
  type OfflineHookImpl,
  type OfflineLevelsSummary,
  type OfflineUploaderControl,
} from './offline.js';
export { OfflineQueue, type ListQueueOptions, type PendingUpload } from './queue.js';
export { ensureOfflineSchema, hasOfflineSchema, OFFLINE_SCHEMA_VERSION } from './schema.js';
export { computeLevels, eligibilityError, limitError, ageStage, maxAgeMs, warnAgeMs, type AgeStage } from './policy.js';
export { Uploader, type FlushReport, type ItemResult, type UploadPlatform, type UploaderOptions } from './uploader.js';
export { AgeWatch, type AgeWarning } from './age-watch.js';
export * from './types.js';
export { openQueueReadOnly, type ReadOnlyQueue } from './read-only.js';
export {
  toCsv,
  toJson,
  csvChunks,
  jsonChunks,
  exportRow,
  EXPORT_CHUNK_ROWS,
  EXPORT_COLUMNS,
  type ExportRow,
} from './export.js';
export { offlineRetention } from './retention.js';
