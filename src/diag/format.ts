import type { CheckResult, DiagReport } from './types.js';

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** One line per check: status, id, finding, and the remedy after a failure or warning. */
export function formatCheck(c: CheckResult): string {
  return `${MARK[c.status]}  ${c.id.padEnd(16)} ${c.finding}${c.remedy !== undefined && (c.status === 'fail' || c.status === 'warn') ? ` -> ${c.remedy}` : ''}`;
}

export function formatReport(r: DiagReport): string {
  const lines = r.checks.map(formatCheck);
  lines.push(
    `${r.ok ? 'no failures' : `${r.counts.fail} failed`}: ${r.counts.ok} ok, ${r.counts.warn} warnings, ${r.counts.skip} skipped (${r.durationMs} ms); terminal-agent ${r.version}`,
  );
  return lines.join('\n');
}
