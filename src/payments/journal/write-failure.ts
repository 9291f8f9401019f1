import { dirname } from 'node:path';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { CARD_DATA_STATES, type JournalPatch, type JournalRow } from './types.js';

/**
 * What the journal does when SQLite cannot write (docs/journal.md, "Journal", writes
 * that fail): the disk is full (SQLITE_FULL), an I/O error, a read-only file, or a lock
 * held past the busy timeout. Any other error (a constraint, a bug) is thrown as it is.
 */
const STORAGE_CODE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY|NOMEM)/;

export function isStorageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORAGE_CODE.test(code);
}

/**
 * SQLite's codes (and the file system's) for files that cannot grow or be written, as a full
 * disk gives them: the journal's file or its -wal/-shm cannot be extended or written. A
 * read error (SQLITE_IOERR_READ, SHORT_READ) or damage (SQLITE_CORRUPT, NOTADB) is not one.
 */
const NO_ROOM_CODE =
  /^(SQLITE_FULL|SQLITE_IOERR(_(WRITE|FSYNC|DIR_FSYNC|TRUNCATE|SHMOPEN|SHMSIZE|SHMMAP|SHMLOCK|MMAP|BEGIN_ATOMIC|COMMIT_ATOMIC))?|ENOSPC|EFBIG|EDQUOT)$/;

/** Whether an error at open says the disk (or the file's limit) has no room, rather than damage. */
export function isNoRoomError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NO_ROOM_CODE.test(code);
}

/**
 * The one line a start on a full disk prints (docs/operations.md, "Troubleshooting"): the
 * journal cannot be created, opened or written. Names the file, the directory to free space
 * in and that nothing was deleted; the code says it is not damage (JOURNAL_UNWRITABLE).
 */
export function openRefusal(file: string, err: unknown): AgentError {
  const code = errorCode(err) ?? 'an I/O error';
  const what = (err as Error | null)?.message ?? String(err);
  const dir = dirname(file);
  return new AgentError(
    ErrorCodes.JOURNAL_UNWRITABLE,
    `cannot open the journal ${file}: the disk is full or its files cannot be written (${code}: ${what}); free space in ${dir} (df -h ${dir}) and start again; nothing was deleted or changed`,
    { cause: err, details: { file, code } },
  );
}

/**
 * A patch that must be on disk before a request leaves (write-ahead: the row goes
 * in_flight, or a new attempt of a request is counted). It is never kept in memory
 * instead: the request must not leave unless the journal has it.
 */
export function isWriteAhead(patch: JournalPatch): boolean {
  return patch.state === 'in_flight' || (patch.attempts !== undefined && patch.attempts !== null);
}

export interface WriteFailure {
  /** SQLite's code, e.g. SQLITE_FULL. */
  code: string;
  /** For people: what failed and what to do. */
  reason: string;
  /** ISO time of the first failure of this episode. */
  since: string;
}

export function describeWriteFailure(err: unknown, since: string): WriteFailure {
  const code = errorCode(err) ?? 'SQLITE_ERROR';
  const what =
    code === 'SQLITE_FULL'
      ? 'the disk (or the journal) is full'
      : code.startsWith('SQLITE_BUSY')
        ? 'another process holds the journal'
        : 'the journal file cannot be written';
  return { code, reason: `the journal cannot write (${code}: ${what}); free space in the data directory`, since };
}

export function unwritableError(failure: WriteFailure, cause?: unknown): AgentError {
  return new AgentError(ErrorCodes.JOURNAL_UNWRITABLE, `${failure.reason}: no new payment starts until it can`, {
    ...(cause !== undefined ? { cause } : {}),
    details: { code: failure.code, since: failure.since },
  });
}

/** Two patches of one row as one: the later wins field by field. */
export function mergePatches(earlier: JournalPatch | undefined, later: JournalPatch): JournalPatch {
  if (earlier === undefined) return { ...later };
  const merged: JournalPatch = { ...earlier };
  for (const [k, v] of Object.entries(later) as Array<[keyof JournalPatch, unknown]>) {
    if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  }
  return merged;
}

/** The row as it is once a patch kept in memory is written (same rules as Journal.update for card data). */
export function overlay(row: JournalRow, patch: JournalPatch, at: string): JournalRow {
  const out: Record<string, unknown> = { ...row };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    out[k] = v === null ? undefined : v;
  }
  const next = out as unknown as JournalRow;
  if (!CARD_DATA_STATES.has(next.state)) next.cardSecret = undefined;
  next.updatedAt = at;
  return next;
}

/** The error's code (SQLite's `SQLITE_FULL`, the system's `ENOSPC`), when it has one. */
function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
}
