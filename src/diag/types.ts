/** ok: fine; warn: works but needs attention; fail: in the way of sales; skip: not applicable or not checkable now. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of `terminal-agent diag`. Findings and facts never carry secrets, tokens or key material. */
export interface CheckResult {
  /** Stable id, e.g. `certificate`, `tls.device-auth`, `serial.reader`. */
  id: string;
  title: string;
  status: CheckStatus;
  /** A short finding, one line. */
  finding: string;
  /** What to do; given for every failure and for warnings with a fix. */
  remedy?: string;
  durationMs: number;
  /** Structured, non-secret details for `--json` and the bundle. */
  facts?: Record<string, unknown>;
}

export interface DiagReport {
  /** The agent's version (the package's package.json), as `terminal-agent --version` prints it. */
  version: string;
  /** False when any check failed (the exit code is 1 then). */
  ok: boolean;
  startedAt: string;
  durationMs: number;
  counts: Record<CheckStatus, number>;
  checks: CheckResult[];
}

/** What one check step returns; the runner adds duration and default id/title. */
export interface Outcome {
  id?: string;
  title?: string;
  status: CheckStatus;
  finding: string;
  remedy?: string;
  facts?: Record<string, unknown>;
}

/** The offline queue as diagnostics see it: counts and totals, no card data. */
export interface OfflineSummary {
  file: string;
  /** Stored and not yet confirmed by the platform. */
  count: number;
  maxCount: number;
  totals: Record<string, number>;
  oldestClientTransactionId: string | null;
  oldestStoredAt: string | null;
  oldestAgeHours: number | null;
  maxAgeHours: number;
  needsAttention: number;
  states: Record<string, number>;
}

/** Certificate facts for the bundle: nothing of the key but its file name and mode. */
export interface CertificateFacts {
  certFile: string;
  keyFile: string;
  caFile: string;
  keyMode: string | null;
  subject: string;
  serialNumber: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  daysLeft: number;
  state: string;
  thumbprint: string;
  fingerprint256: string;
}
