import type { Database as Db } from 'better-sqlite3';
import type { Logger } from '../../core/index.js';

/**
 * A journal up to this size is switched to incremental vacuum at open: VACUUM rewrites the
 * whole file (through the write-ahead log, so it needs about twice its size free) and holds
 * the start for about a second per 16 MB on a terminal's flash.
 */
export const COMPACT_AT_OPEN_MAX_BYTES = 16 * 1024 * 1024;

export type AutoVacuum = 'none' | 'full' | 'incremental';

export function autoVacuumMode(db: Db): AutoVacuum {
  const mode = Number(db.pragma('auto_vacuum', { simple: true }));
  return mode === 2 ? 'incremental' : mode === 1 ? 'full' : 'none';
}

/**
 * Switches the journal to `auto_vacuum = INCREMENTAL` (docs/journal.md, "Retention"): a new
 * file has it from its creation; an older one needs one VACUUM, run here when the file is
 * small enough to rewrite at start. A larger one keeps its mode until `terminal-agent journal
 * compact` runs with the agent stopped; the pages the prune frees are reused by new rows
 * meanwhile, so the file stops growing but does not shrink. A VACUUM that fails (no room, a
 * reader holding the file) changes nothing and is tried at the next start.
 */
export function useIncrementalVacuum(
  db: Db,
  log?: Pick<Logger, 'warn'>,
  maxBytes = COMPACT_AT_OPEN_MAX_BYTES,
): AutoVacuum {
  const mode = autoVacuumMode(db);
  if (mode === 'incremental') return mode;
  const bytes = Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
  if (bytes > maxBytes) return mode;
  return compactJournal(db, log);
}

/** The switch itself: one VACUUM, which also gives back every free page. Answers the mode after it. */
export function compactJournal(db: Db, log?: Pick<Logger, 'warn'>): AutoVacuum {
  try {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  } catch (err) {
    log?.warn({ err }, 'journal not switched to incremental vacuum: tried again at the next start');
  }
  return autoVacuumMode(db);
}
