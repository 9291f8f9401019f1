import { fstatSync } from 'node:fs';

/**
 * systemd's journal reads a `<N>` syslog priority at the start of each line written to a
 * unit's stdout (sd-daemon(3), SyslogLevelPrefix=true, the default) and files the line at
 * that priority (docs/operations.md, "Logs"). pino levels map to sd-daemon levels:
 * fatal 2 (crit), error 3 (err), warn 4 (warning), info 6 (info), debug and trace 7 (debug).
 */
export function syslogPriority(pinoLevel: number): number {
  if (pinoLevel >= 60) return 2;
  if (pinoLevel >= 50) return 3;
  if (pinoLevel >= 40) return 4;
  if (pinoLevel >= 30) return 6;
  return 7;
}

/**
 * True when `fd` is the journal's stream: systemd sets JOURNAL_STREAM to "dev:ino" of the
 * socket it connects to stdout/stderr; a child whose stdout was redirected elsewhere
 * inherits the variable, so the device and inode must match fd's own (systemd.exec(5),
 * "$JOURNAL_STREAM").
 */
export function isJournalStream(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const m = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? '');
  if (m === null) return false;
  try {
    const st = fstatSync(fd, { bigint: true });
    return st.dev === BigInt(m[1] ?? '') && st.ino === BigInt(m[2] ?? '');
  } catch {
    return false;
  }
}

const LEVEL_FIELD = /^\{"level":(\d+)/;

/**
 * Prefixes one serialized pino line with its priority. pino writes `level` first (no
 * level formatter is set), so a regular expression on the start finds it without parsing
 * the line; a line without it is filed as info.
 */
export function withSyslogPrefix(line: string): string {
  const m = LEVEL_FIELD.exec(line);
  return `<${syslogPriority(m === null ? 30 : Number(m[1]))}>${line}`;
}
