export * from './api.js';
export { PaymentService, type PaymentServiceDeps } from './service.js';
export type { PaymentsPlatform } from './payment-context.js';
export type { OfflineHook, OfflineCandidate, OfflineSale, OfflineDecision } from './offline-hook.js';
export {
  offlineSaleReports,
  type OfflineSaleReports,
  type SettledUpload,
  type UploadResultWrite,
} from './offline-reports.js';
export {
  salePatchFromRecord,
  uploadSettlement,
  type RecordSource,
  type SaleRecordPatch,
  type UploadSettlement,
} from './sale-record-patch.js';
export { cardProcessBody, cardFromRow, cardSecretOf } from './card-body.js';
export {
  Journal,
  JOURNAL_FILE,
  watchCardDataColumn,
  checkJournal,
  journalRefusal,
  type JournalCheck,
  journalMigrations,
  migrate,
  FINAL_STATES,
  type JournalRow,
  type Migration,
  type CardSecret,
  withOperator,
  currentOperator,
  AGENT_OPERATOR,
  IdempotencyKeys,
  type IdempotencyRecord,
  AuditLog,
  type AuditEntry,
  type AuditRecord,
  JournalPruner,
  retentionFacts,
  agentOnJournal,
  type RetentionFacts,
  scheduleFile,
  compactJournal,
  autoVacuumMode,
  type RetentionPartner,
  type PruneReport,
  type PruneSchedule,
  type AutoVacuum,
} from './journal/index.js';
export {
  parseAmount,
  parseMoney,
  formatAmount,
  formatMajor,
  assertAmount,
  minorDigits,
  normalizeCurrency,
  isKnownCurrency,
  type Money,
} from './money.js';
export { toView } from './view.js';
export { JournalWriter, type ChangeOptions } from './journal-writer.js';
export { createEventRelay, type EventRelay, type EventRelayOptions } from './relay/index.js';
export { recoverAfterFirstToken } from './recovery-trigger.js';
export * from './receipts/index.js';
export { saleReferenceProblem, SALE_REFERENCE_MAX_LENGTH } from './sale-request.js';
