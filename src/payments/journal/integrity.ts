import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { isNoRoomError, openRefusal } from './write-failure.js';

/**
 * The journal's integrity check at open and for `terminal-agent journal check`
 * (docs/journal.md, "Journal", integrity at start). It only reads: a damaged or
 * emptied journal is kept exactly as found, for a backup restore or for reconciliation.
 *
 * - header and size: the SQLite magic, a page size SQLite allows, a whole number of pages,
 *   and (without a write-ahead log to complete it) as many pages as the header records;
 * - `PRAGMA quick_check(1)` over a read-only connection: every b-tree page and record
 *   header, stopping at the first fault; bounded by `maxCheckBytes` (above it only the
 *   header, size and schema are checked, and the report says so);
 * - "emptied": the marker file beside the journal (`<file>.marker`, written once the
 *   journal has its tables) says a journal existed here; a missing file, a zero-length
 *   file or a database without the journal's tables is then refused. Without a marker (an
 *   older install) a zero-length journal still counts as emptied when the data directory
 *   holds anything else (the local API token, a write-ahead log...): only a data directory
 *   with nothing but an empty journal file is a first start.
 */

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** quick_check of a 150 MB journal takes about half a second; past this it is skipped. */
export const DEFAULT_MAX_CHECK_BYTES = 1024 * 1024 * 1024;

export type JournalCheckState =
  /** No journal file and no marker: a new data directory (the agent creates it). */
  | 'missing'
  /** A file the agent may start on: empty of tables on a first start, or a sound journal. */
  | 'ok'
  /** Header, size, pages or records are broken: refuse, keep the file. */
  | 'damaged'
  /** A journal existed here and is gone or empty now: refuse, keep what is there. */
  | 'emptied';

export interface JournalCheck {
  state: JournalCheckState;
  file: string;
  marker: string;
  markerPresent: boolean;
  /** What is wrong, in words (damaged, emptied). */
  problem?: string;
  sizeBytes?: number;
  walBytes?: number;
  pageSize?: number;
  pages?: number;
  /** 'full': quick_check ran; 'header': header, size and schema only (damage found there, or the file above maxCheckBytes); 'none': no file to check. */
  checked: 'full' | 'header' | 'none';
  schemaVersion?: number;
  /** Journal rows per state. */
  rows?: Record<string, number>;
  /** Rows still holding card data (journal rows and queued upload bodies). */
  cardDataRows?: number;
  /** Offline queue items per state, when the queue's table exists. */
  queue?: Record<string, number>;
  /** When the oldest journal row was made (ISO), null when there is none (docs/journal.md, "Retention"). */
  oldestRowAt?: string | null;
  /** SQLite's auto_vacuum mode: `incremental` gives the space of pruned rows back to the file system. */
  autoVacuum?: 'none' | 'full' | 'incremental';
  /** Pages free inside the file (reused by new rows, or given back by the incremental vacuum). */
  freePages?: number;
}

export function markerFile(file: string): string {
  return `${file}.marker`;
}

function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

function readHeader(file: string): Buffer {
  const buf = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  try {
    const n = readSync(fd, buf, 0, 100, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Files in the data directory that are not the journal's own: traces of an agent that ran. */
function otherTraces(file: string): string[] {
  const own = new Set([basename(file), `${basename(file)}-wal`, `${basename(file)}-shm`, basename(markerFile(file))]);
  try {
    return readdirSync(dirname(file)).filter((name) => !own.has(name));
  } catch {
    return [];
  }
}

/** Header and size problems SQLite itself would only meet on the page that is missing. */
function headerProblem(
  header: Buffer,
  size: number,
  walBytes: number,
): { problem?: string; pageSize?: number; pages?: number } {
  if (header.length < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC))
    return { problem: "not a SQLite database (its header is not SQLite's)" };
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0)
    return { problem: `the header's page size ${raw} is not one SQLite writes` };
  const changeCounter = header.readUInt32BE(24);
  const headerPages = header.readUInt32BE(28);
  const validFor = header.readUInt32BE(92);
  const pages = Math.floor(size / pageSize);
  if (size % pageSize !== 0)
    return {
      problem: `its size (${size} bytes) is not a whole number of ${pageSize}-byte pages: truncated or padded`,
      pageSize,
      pages,
    };
  // With a write-ahead log, a checkpoint in progress may have grown the header first; the log completes it.
  if (walBytes === 0 && headerPages > 0 && changeCounter === validFor && headerPages > pages) {
    return { problem: `truncated: its header records ${headerPages} pages, the file holds ${pages}`, pageSize, pages };
  }
  return { pageSize, pages };
}

function countBy(db: Database.Database, sql: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of db.prepare(sql).all() as Array<{ k: string; n: number }>) out[r.k] = r.n;
  return out;
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Rows per state and card data held, for the report; a schema older than these queries gives none. */
function summary(
  db: Database.Database,
): Pick<JournalCheck, 'rows' | 'cardDataRows' | 'queue' | 'oldestRowAt' | 'autoVacuum' | 'freePages'> {
  try {
    const oldest = (db.prepare('SELECT min(created_at) AS at FROM transactions').get() as { at: string | null }).at;
    const mode = Number(db.pragma('auto_vacuum', { simple: true }));
    const space = {
      oldestRowAt: oldest,
      autoVacuum: mode === 2 ? ('incremental' as const) : mode === 1 ? ('full' as const) : ('none' as const),
      freePages: Number(db.pragma('freelist_count', { simple: true })),
    };
    const rows = countBy(db, 'SELECT state AS k, COUNT(*) AS n FROM transactions GROUP BY state');
    let cardDataRows = (
      db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE card_secret IS NOT NULL').get() as { n: number }
    ).n;
    const withQueue = hasTable(db, 'offline_queue');
    const queue = withQueue
      ? countBy(db, 'SELECT state AS k, COUNT(*) AS n FROM offline_queue GROUP BY state')
      : undefined;
    if (withQueue)
      cardDataRows += (
        db.prepare('SELECT COUNT(*) AS n FROM offline_queue WHERE body IS NOT NULL').get() as { n: number }
      ).n;
    return { rows, cardDataRows, ...(queue !== undefined ? { queue } : {}), ...space };
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_ERROR') return {};
    throw err;
  }
}

/**
 * Checks the journal file of `dataDir` without changing it (read-only connection; SQLite
 * may create an empty `-wal`/`-shm` beside it, as any reader does).
 */
export function checkJournal(file: string, opts: { maxCheckBytes?: number } = {}): JournalCheck {
  const marker = markerFile(file);
  const markerPresent = existsSync(marker);
  const base: JournalCheck = { state: 'ok', file, marker, markerPresent, checked: 'none' };
  const size = sizeOf(file);
  const walBytes = sizeOf(`${file}-wal`) ?? 0;
  if (size === undefined) {
    if (markerPresent)
      return {
        ...base,
        state: 'emptied',
        problem: `the journal file is missing, though ${basename(marker)} says a journal was kept here`,
      };
    return { ...base, state: 'missing' };
  }
  const found: JournalCheck = { ...base, sizeBytes: size, walBytes };
  if (size === 0) {
    if (markerPresent)
      return {
        ...found,
        state: 'emptied',
        problem: `the journal file is empty (0 bytes), though ${basename(marker)} says a journal was kept here`,
      };
    if (walBytes > 0)
      return {
        ...found,
        state: 'emptied',
        problem: `the journal file is empty (0 bytes) but its write-ahead log holds ${walBytes} bytes`,
      };
    const traces = otherTraces(file);
    if (traces.length > 0)
      return {
        ...found,
        state: 'emptied',
        problem: `the journal file is empty (0 bytes) in a data directory an agent has used (${traces.slice(0, 3).join(', ')})`,
      };
    return found;
  }
  let header: Buffer;
  try {
    header = readHeader(file);
  } catch (err) {
    return {
      ...found,
      state: 'damaged',
      problem: `cannot read it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    };
  }
  const h = headerProblem(header, size, walBytes);
  const sized: JournalCheck = {
    ...found,
    checked: 'header',
    ...(h.pageSize !== undefined ? { pageSize: h.pageSize } : {}),
    ...(h.pages !== undefined ? { pages: h.pages } : {}),
  };
  if (h.problem !== undefined) return { ...sized, state: 'damaged', problem: h.problem };

  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const full = size <= (opts.maxCheckBytes ?? DEFAULT_MAX_CHECK_BYTES);
    if (full) {
      const result = String(db.pragma('quick_check(1)', { simple: true }));
      if (result !== 'ok') {
        const first = result.split('\n').filter((l) => !l.startsWith('***'))[0] ?? result;
        return { ...sized, checked: 'full', state: 'damaged', problem: `SQLite's check found: ${first.slice(0, 200)}` };
      }
    }
    const checked = full ? 'full' : 'header';
    const schemaVersion = db.pragma('user_version', { simple: true }) as number;
    if (!hasTable(db, 'transactions')) {
      if (markerPresent)
        return {
          ...sized,
          checked,
          schemaVersion,
          state: 'emptied',
          problem: `it holds no journal tables, though ${basename(marker)} says a journal was kept here`,
        };
      return { ...sized, checked, schemaVersion };
    }
    return { ...sized, checked, schemaVersion, ...summary(db) };
  } catch (err) {
    const code = (err as { code?: string }).code;
    // Busy or locked is not damage: another process holds the file (say so, do not call it damaged).
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new AgentError(
        ErrorCodes.JOURNAL_DAMAGED,
        `cannot check the journal ${file}: another process holds it (${code}); stop it and try again`,
        { cause: err },
      );
    }
    // No room is not damage either: a reader that cannot create or size the -shm file on a full
    // disk (SQLITE_IOERR_SHMOPEN) would otherwise send someone to move a sound journal aside.
    if (isNoRoomError(err)) throw openRefusal(file, err);
    return {
      ...sized,
      state: 'damaged',
      problem: `SQLite cannot read it: ${(err as Error).message}${code !== undefined ? ` (${code})` : ''}`,
    };
  } finally {
    db?.close();
  }
}

/**
 * The one line a refused start prints: which file, what was found, what to do. The file is
 * never deleted: it may hold sales to reconcile (docs/operations.md, "Troubleshooting").
 */
export function journalRefusal(check: JournalCheck): AgentError {
  const dir = dirname(check.file);
  const name = basename(check.file);
  const what = check.state === 'emptied' ? 'was emptied' : 'is damaged';
  return new AgentError(
    ErrorCodes.JOURNAL_DAMAGED,
    `journal ${check.file} ${what} (${check.problem ?? 'unknown fault'}); the agent will not start on it and has not changed it. ` +
      `Stop the agent, move the journal's files aside (mkdir ${dir}/journal-aside && mv ${dir}/${name}* ${dir}/journal-aside/), never delete them (they may hold sales to reconcile), ` +
      `then put a backup of ${name} in ${dir}, or start with an empty journal; \`terminal-agent journal check\` shows what was found`,
    {
      details: {
        file: check.file,
        state: check.state,
        ...(check.problem !== undefined ? { problem: check.problem } : {}),
      },
    },
  );
}
