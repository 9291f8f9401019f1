export { runDiagnostics, DEFAULT_CHECK_TIMEOUT_MS, type DiagRun } from './run.js';
export { formatCheck, formatReport } from './format.js';
export {
  buildBundle,
  writeBundle,
  defaultBundleFile,
  BUNDLE_FORMAT,
  type DiagBundle,
  type BundleOptions,
} from './bundle.js';
export { scrubText, scrubValue, scrubLogLine } from './scrub.js';
export { tailLog, type LogTail } from './log-tail.js';
export { readUnitJournal, type UnitJournal, type UnitJournalEntry, type UnitJournalOptions } from './unit-journal.js';
export { collectVersions, type Versions } from './versions.js';
export { diagEndpoints } from './platform-access.js';
export { tlsProbe, type TlsProbeResult } from './checks/tls.js';
export type { DiagOptions, DiagState, AgentProbe } from './state.js';
export type { CheckResult, CheckStatus, DiagReport, OfflineSummary, CertificateFacts } from './types.js';
