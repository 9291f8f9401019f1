import { execFile } from 'node:child_process';
import { scrubLogLine, scrubText } from './scrub.js';

/** One journal entry of the unit, as the bundle keeps it: time, priority, process, message (scrubbed). */
export interface UnitJournalEntry {
  time: string | null;
  priority: number | null;
  pid: number | null;
  identifier: string | null;
  message: string;
}

export interface UnitJournal {
  unit: string;
  /** The command that was run, for support to repeat it. */
  command: string;
  /** journalctl ran and answered. */
  available: boolean;
  entries: UnitJournalEntry[];
  /** Why there are no entries (no journalctl, no journal for the unit, no permission), or what journalctl warned. */
  note: string | null;
  /** More entries than the bound were there: only the last ones are kept. */
  truncated: boolean;
}

export interface UnitJournalOptions {
  unit?: string;
  /** How far back (journalctl --since), default the last hour. */
  since?: string;
  /** At most this many entries (journalctl -n), default 2000. */
  lines?: number;
  /** Where journalctl is looked for (PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** journalctl's output is read up to this size; a larger one is cut and reported as truncated. */
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  // journald gives a message that is not valid UTF-8 as an array of bytes.
  if (Array.isArray(value) && value.every((b) => typeof b === 'number')) return Buffer.from(value).toString('utf8');
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

function num(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

function entryOf(line: string): UnitJournalEntry | undefined {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const micros = num(record.__REALTIME_TIMESTAMP);
  return {
    time: micros === null ? null : new Date(Math.floor(micros / 1000)).toISOString(),
    priority: num(record.PRIORITY),
    pid: num(record._PID),
    identifier: typeof record.SYSLOG_IDENTIFIER === 'string' ? record.SYSLOG_IDENTIFIER : null,
    // The agent's lines are JSON: scrubbed field by field like the log tail (log-tail.ts).
    message: scrubLogLine(text(record.MESSAGE)),
  };
}

/**
 * The unit's recent journal for the support bundle (docs/operations.md, "Logs"):
 * `journalctl -u terminal-agent --since -1h -o json --no-pager -n 2000`, bounded in
 * entries, bytes and time, each message scrubbed as the log tail is. Only a few fields
 * are kept (no cursor, boot or machine id). Never throws: when journalctl is missing,
 * fails, or the unit has no journal, the answer says so in `note`.
 */
export function readUnitJournal(opts: UnitJournalOptions = {}): Promise<UnitJournal> {
  const unit = opts.unit ?? 'terminal-agent';
  const lines = opts.lines ?? 2000;
  const args = ['-u', unit, '--since', opts.since ?? '-1h', '-o', 'json', '--no-pager', '-n', String(lines)];
  const command = `journalctl ${args.join(' ')}`;
  const base = { unit, command, entries: [] as UnitJournalEntry[], truncated: false };
  return new Promise((resolve) => {
    execFile(
      'journalctl',
      args,
      {
        env: opts.env ?? process.env,
        maxBuffer: MAX_OUTPUT_BYTES,
        timeout: opts.timeoutMs ?? 10_000,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const warning = scrubText(stderr.trim().split('\n')[0] ?? '').trim();
        const code = (err as NodeJS.ErrnoException | null)?.code;
        if (code === 'ENOENT') {
          resolve({
            ...base,
            available: false,
            note: 'journalctl not found: no systemd journal on this machine (or not on PATH)',
          });
          return;
        }
        const cut = code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
        if (err !== null && !cut) {
          const why = err.killed
            ? `took longer than ${opts.timeoutMs ?? 10_000} ms`
            : `exited with ${String(code ?? err.message)}`;
          resolve({ ...base, available: false, note: `journalctl ${why}${warning ? `: ${warning}` : ''}` });
          return;
        }
        let rows = stdout.split('\n').filter((l) => l.trim() !== '');
        // A cut output ends mid-entry: drop the fragment.
        if (cut) rows = rows.slice(0, -1);
        const entries = rows.map(entryOf).filter((e): e is UnitJournalEntry => e !== undefined);
        const note =
          entries.length === 0
            ? `the unit ${unit} has no journal entries since ${opts.since ?? '-1h'}${warning ? ` (journalctl: ${warning})` : ' (not installed as a systemd unit, or not run recently)'}`
            : warning || null;
        resolve({ ...base, available: true, entries, note, truncated: cut || entries.length >= lines });
      },
    );
  });
}
