export {
  Journal,
  JOURNAL_FILE,
  watchCardDataColumn,
  type JournalOptions,
  type JournalWriteStatus,
  type ListOptions,
  type JournalSummaryRow,
  DAY_ROWS_SQL,
} from './journal.js';
export { isStorageError } from './write-failure.js';
export {
  checkJournal,
  journalRefusal,
  markerFile,
  DEFAULT_MAX_CHECK_BYTES,
  type JournalCheck,
  type JournalCheckState,
} from './integrity.js';
export { journalMigrations, migrate, type Migration } from './migrations.js';
export {
  FINAL_STATES,
  CARD_DATA_STATES,
  type CardSecret,
  type JournalRow,
  type NewJournalRow,
  type JournalPatch,
} from './types.js';
export { withOperator, currentOperator, AGENT_OPERATOR } from './operator.js';
export { IdempotencyKeys, type IdempotencyRecord } from './idempotency-keys.js';
export { AuditLog, type AuditEntry, type AuditRecord } from './audit-log.js';
export {
  JournalPruner,
  retentionFacts,
  agentOnJournal,
  type RetentionFacts,
  REMOVABLE_STATES,
  PRUNE_BATCH_ROWS,
  PRUNE_FIRST_DELAY_MS,
  PRUNE_INTERVAL_MS,
  scheduleFile,
  type RetentionPartner,
  type PruneBatch,
  type PruneReport,
  type PruneSchedule,
  type JournalPrunerOptions,
} from './retention.js';
export {
  useIncrementalVacuum,
  compactJournal,
  autoVacuumMode,
  COMPACT_AT_OPEN_MAX_BYTES,
  type AutoVacuum,
} from './vacuum.js';
