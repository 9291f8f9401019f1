import type { Database, Statement } from 'better-sqlite3';
import { AgentError, ErrorCodes, type TimeSource } from '../../core/index.js';
import { isStorageError } from './write-failure.js';

/** One change to how the terminal runs that hides or changes what it records (docs/operations.md, "Log level"). */
export interface AuditEntry {
  /** What was done, e.g. `log-level`. */
  action: string;
  /** Who did it: a clerk's username, `cli` or `local-api`. */
  by: string;
  /** What it was changed to, in words (no secrets: a level, a setting's name). */
  detail: string;
  requestId?: string;
}

export interface AuditRecord extends AuditEntry {
  at: string;
}

interface AuditRow {
  at: string;
  action: string;
  by: string;
  detail: string;
  request_id: string | null;
}

/**
 * The journal's audit rows: kept in the journal's file, so they outlast the logs a change may
 * have silenced, and written before the change takes effect (an unwritable journal refuses
 * the change instead).
 */
export class AuditLog {
  private readonly insert: Statement;

  constructor(
    private readonly db: Database,
    private readonly clock: TimeSource,
  ) {
    this.insert = db.prepare(
      'INSERT INTO audit (at, action, by, detail, request_id) VALUES (@at, @action, @by, @detail, @request_id)',
    );
  }

  record(entry: AuditEntry): void {
    try {
      this.insert.run({
        at: new Date(this.clock.wall()).toISOString(),
        action: entry.action,
        by: entry.by,
        detail: entry.detail,
        request_id: entry.requestId ?? null,
      });
    } catch (err) {
      if (isStorageError(err))
        throw new AgentError(
          ErrorCodes.JOURNAL_UNWRITABLE,
          `the change was not made: its audit row could not be written to the journal (${(err as Error).message}); free space or fix the disk, then try again`,
          { cause: err },
        );
      throw err;
    }
  }

  /** The newest `limit` rows, newest first. */
  latest(limit = 20): AuditRecord[] {
    const rows = this.db
      .prepare('SELECT at, action, by, detail, request_id FROM audit ORDER BY id DESC LIMIT ?')
      .all(limit) as AuditRow[];
    return rows.map((r) => ({
      at: r.at,
      action: r.action,
      by: r.by,
      detail: r.detail,
      ...(r.request_id !== null ? { requestId: r.request_id } : {}),
    }));
  }
}
