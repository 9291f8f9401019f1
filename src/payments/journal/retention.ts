import type { Database as Db } from 'better-sqlite3';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Logger, TimerHandle, TimerSource, TimeSource } from '../../core/index.js';
import type { Journal } from './journal.js';

/**
 * Journal retention (docs/journal.md, "Retention"): a terminal's flash must not fill with
 * years of sales. Final transactions whose last change is older than the window are removed
 * with their operations, events and partner rows (the offline queue's uploaded items) in
 * small batches, off the sale path, and the freed pages are given back to the file system
 * with SQLite's incremental vacuum.
 */

const DAY_MS = 86_400_000;

/**
 * The states a row may be removed in: final, and settled by the platform's word. Not
 * `needs_attention` (a person must look at it), nor anything in flight, pending, reversing
 * or stored offline (docs/journal.md, "Retention").
 */
export const REMOVABLE_STATES: ReadonlySet<string> = new Set([
  'approved',
  'declined',
  'failed',
  'cancelled',
  'reversed',
]);

/**
 * Rows removed in one SQLite transaction at most (a sale with more operations than this goes
 * alone): about 3 to 5 ms on the development VM's disk, as long as one journal write, so a
 * sale's write waits at most about that (docs/journal.md, "Retention").
 */
export const PRUNE_BATCH_ROWS = 100;
/** The first run, this long after start: the start's own work (recovery, uploads) goes first. */
export const PRUNE_FIRST_DELAY_MS = 10 * 60_000;
/** Then every this long: a day adds a few hundred rows, a few runs a day keep up. */
export const PRUNE_INTERVAL_MS = 6 * 3_600_000;
/** Pages one incremental-vacuum step frees (a small write transaction each: 64 pages took about 8 ms, 32 about half). */
export const VACUUM_STEP_PAGES = 32;

/**
 * Tables of other components in the journal's file whose rows belong to a sale (the offline
 * queue): the journal defines this, the component fulfils it (docs/architecture.md, "Layers").
 */
export interface RetentionPartner {
  /** The sales of `saleIds` this component still needs (an offline sale not uploaded): kept, however old. */
  keeps(saleIds: readonly string[]): ReadonlySet<string>;
  /** Deletes this component's rows of `saleIds`, inside the batch's transaction (its tables share the journal's file), before the journal rows go. */
  remove(saleIds: readonly string[]): number;
}

export interface PruneBatch {
  /** Journal rows removed (sales and their operations). */
  rows: number;
  /** Sales (with their operations) removed. */
  sales: number;
  /** Partner rows removed (offline queue items). */
  partnerRows: number;
  /** Nothing older than the window is left to look at in this run. */
  done: boolean;
}

export interface PruneReport {
  at: string;
  cutoff: string;
  rows: number;
  sales: number;
  partnerRows: number;
  batches: number;
  /** Pages given back to the file system by the incremental vacuum. */
  pagesFreed: number;
  /** Why the run did nothing, when it did nothing on purpose. */
  skipped?: string;
}

/** What the schedule file beside the journal holds, for `journal check` and diag. */
export interface PruneSchedule {
  pid: number;
  retentionDays: number;
  nextPruneAt: string | null;
  lastPrune: PruneReport | null;
}

export function scheduleFile(journalFile: string): string {
  return `${journalFile}.prune`;
}

export interface JournalPrunerOptions {
  /** journal.retentionDays; 0 = keep everything (the job never runs). */
  retentionDays: number;
  clock: Pick<TimeSource, 'wall'> & TimerSource;
  partners?: readonly RetentionPartner[];
  log?: Pick<Logger, 'info' | 'warn'>;
  batchRows?: number;
  firstDelayMs?: number;
  intervalMs?: number;
  vacuumStepPages?: number;
  /** Lets other work run between two batches (default: the next turn of the event loop). */
  yieldTurn?: () => Promise<void>;
}

interface ScanRow {
  r: number;
  client_id: string;
  kind: string;
  state: string;
  related_client_id: string | null;
  created_at: string;
  updated_at: string;
}

interface GroupRow {
  client_id: string;
  state: string;
  updated_at: string;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The prune job: once `firstDelayMs` after start, then every `intervalMs`. A run removes
 * batches of at most `batchRows` rows, each in one SQLite transaction, with a turn of the
 * event loop between them, so a sale's write waits at most one batch. A run that finds
 * nothing old writes nothing.
 */
export class JournalPruner {
  private readonly db: Db;
  private readonly batchRows: number;
  private readonly firstDelayMs: number;
  private readonly intervalMs: number;
  private readonly vacuumStepPages: number;
  private readonly yieldTurn: () => Promise<void>;
  private timer: TimerHandle | undefined;
  private nextAt: number | undefined;
  private running: Promise<PruneReport> | undefined;
  private stopped = false;
  private last: PruneReport | null = null;
  /** Where the scan of this run has got to (created_at, rowid): a row kept is looked at once per run. */
  private cursor: { at: string; r: number } = { at: '', r: 0 };

  constructor(
    private readonly journal: Journal,
    private readonly opts: JournalPrunerOptions,
  ) {
    this.db = journal.db;
    this.batchRows = Math.max(1, opts.batchRows ?? PRUNE_BATCH_ROWS);
    this.firstDelayMs = opts.firstDelayMs ?? PRUNE_FIRST_DELAY_MS;
    this.intervalMs = opts.intervalMs ?? PRUNE_INTERVAL_MS;
    this.vacuumStepPages = opts.vacuumStepPages ?? VACUUM_STEP_PAGES;
    this.yieldTurn = opts.yieldTurn ?? nextTurn;
  }

  get retentionDays(): number {
    return this.opts.retentionDays;
  }

  /** When the next run starts (ms since the epoch), or undefined when retention is off or stopped. */
  nextRunAt(): number | undefined {
    return this.nextAt;
  }

  lastRun(): PruneReport | null {
    return this.last;
  }

  /** Schedules the first run; with retention off (0 days) nothing is ever scheduled. */
  start(): void {
    if (this.opts.retentionDays <= 0 || this.stopped) {
      this.writeSchedule();
      return;
    }
    this.schedule(this.firstDelayMs);
  }

  /** Ends the schedule; a run under way stops after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.nextAt = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.nextAt = this.opts.clock.wall() + delayMs;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = undefined;
      this.nextAt = undefined;
      void this.run()
        .catch((err: unknown) => this.opts.log?.warn({ err }, 'journal prune failed: tried again at the next run'))
        .finally(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.writeSchedule();
  }

  /** The instant before which a row's last change makes it old. */
  cutoff(): string {
    return new Date(this.opts.clock.wall() - this.opts.retentionDays * DAY_MS).toISOString();
  }

  /** One run now: every batch, then the incremental vacuum. Concurrent calls share the run. */
  run(): Promise<PruneReport> {
    this.running ??= this.runOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runOnce(): Promise<PruneReport> {
    const at = new Date(this.opts.clock.wall()).toISOString();
    const cutoff = this.cutoff();
    const report: PruneReport = { at, cutoff, rows: 0, sales: 0, partnerRows: 0, batches: 0, pagesFreed: 0 };
    if (this.opts.retentionDays <= 0) return { ...report, skipped: 'retention off' };
    this.cursor = { at: '', r: 0 };
    for (;;) {
      if (this.stopped || !this.db.open) break;
      // Outcomes kept in memory (a full disk) are not to be raced: their rows are not final on disk.
      const status = this.journal.writeStatus();
      if (!status.writable || status.pendingWrites > 0) {
        report.skipped = 'the journal cannot write now';
        break;
      }
      const batch = this.pruneBatch(cutoff);
      if (batch.rows > 0) report.batches += 1;
      report.rows += batch.rows;
      report.sales += batch.sales;
      report.partnerRows += batch.partnerRows;
      if (batch.done) break;
      await this.yieldTurn();
    }
    if (report.rows > 0) {
      report.pagesFreed = await this.vacuum();
      this.opts.log?.info(
        {
          rows: report.rows,
          sales: report.sales,
          queueRows: report.partnerRows,
          pagesFreed: report.pagesFreed,
          cutoff,
        },
        'journal pruned: rows past the retention removed',
      );
    }
    this.last = report;
    return report;
  }

  /**
   * One batch: looks at rows made before the cutoff, oldest first, from where the last batch
   * stopped, and removes whole sales (the sale with every operation on it) that may go, at
   * most `batchRows` rows, in one transaction. Reads only until then: a run with nothing to
   * remove writes nothing.
   */
  pruneBatch(cutoff: string): PruneBatch {
    const scanLimit = this.batchRows * 4;
    const scanned = this.db
      .prepare<[{ cutoff: string; at: string; r: number; limit: number }], ScanRow>(
        'SELECT rowid AS r, client_id, kind, state, related_client_id, created_at, updated_at FROM transactions ' +
          'WHERE created_at < @cutoff AND (created_at > @at OR (created_at = @at AND rowid > @r)) ORDER BY created_at, rowid LIMIT @limit',
      )
      .all({ cutoff, at: this.cursor.at, r: this.cursor.r, limit: scanLimit });
    const related = this.db.prepare<[string], GroupRow>(
      'SELECT client_id, state, updated_at FROM transactions WHERE related_client_id = ?',
    );
    const exists = this.db.prepare<[string], { n: number }>('SELECT 1 AS n FROM transactions WHERE client_id = ?');
    const groups: Array<{ sale: string; rows: string[] }> = [];
    let rows = 0;
    let full = false;
    let cursor = this.cursor;
    for (const row of scanned) {
      let group: GroupRow[] | undefined;
      if (row.kind === 'sale') group = [row, ...related.all(row.client_id)];
      // An operation goes with its sale; one whose sale is not in the journal goes alone.
      else if (row.related_client_id === null || exists.get(row.related_client_id) === undefined) group = [row];
      if (group !== undefined && group.every((g) => REMOVABLE_STATES.has(g.state) && g.updated_at < cutoff)) {
        if (rows > 0 && rows + group.length > this.batchRows) {
          full = true;
          break;
        }
        groups.push({ sale: row.client_id, rows: group.map((g) => g.client_id) });
        rows += group.length;
      }
      cursor = { at: row.created_at, r: row.r };
    }
    this.cursor = cursor;
    const done = !full && scanned.length < scanLimit;
    if (groups.length === 0) return { rows: 0, sales: 0, partnerRows: 0, done };
    const partners = this.opts.partners ?? [];
    return this.db
      .transaction(() => {
        const ids = groups.map((g) => g.sale);
        const kept = new Set<string>();
        for (const p of partners) for (const id of p.keeps(ids)) kept.add(id);
        const going = groups.filter((g) => !kept.has(g.sale));
        const saleIds = going.map((g) => g.sale);
        let partnerRows = 0;
        // Partner rows first: the offline queue's items reference the journal row.
        if (saleIds.length > 0) for (const p of partners) partnerRows += p.remove(saleIds);
        const del = this.db.prepare('DELETE FROM transactions WHERE client_id = ?');
        let removed = 0;
        for (const g of going) for (const id of g.rows) removed += del.run(id).changes;
        return { rows: removed, sales: going.length, partnerRows, done };
      })
      .immediate();
  }

  /**
   * Gives the freed pages back to the file system in small steps (auto_vacuum INCREMENTAL:
   * docs/journal.md, "Retention"), a turn of the event loop between two, then checkpoints
   * the write-ahead log so the file itself shrinks. A journal without incremental vacuum
   * keeps its size and reuses the freed pages for new rows.
   */
  private async vacuum(): Promise<number> {
    let freed = 0;
    if (Number(this.db.pragma('auto_vacuum', { simple: true })) === 2) {
      for (;;) {
        if (this.stopped || !this.db.open) break;
        const free = Number(this.db.pragma('freelist_count', { simple: true }));
        if (free === 0) break;
        const before = Number(this.db.pragma('page_count', { simple: true }));
        this.db.pragma(`incremental_vacuum(${this.vacuumStepPages})`);
        const after = Number(this.db.pragma('page_count', { simple: true }));
        freed += before - after;
        if (after >= before) break;
        await this.yieldTurn();
      }
    }
    if (this.db.open) this.journal.scrub();
    return freed;
  }

  /**
   * The schedule beside the journal (`journal.sqlite.prune`), read by `journal check` and
   * diag: a small file written when a run is scheduled, never the database.
   */
  private writeSchedule(): void {
    const file = scheduleFile(this.journal.file);
    const body: PruneSchedule = {
      pid: process.pid,
      retentionDays: this.opts.retentionDays,
      nextPruneAt: this.nextAt === undefined ? null : new Date(this.nextAt).toISOString(),
      lastPrune: this.last,
    };
    try {
      writeFileSync(`${file}.tmp`, `${JSON.stringify(body)}\n`, { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    } catch (err) {
      // Only a report for people: a full disk must not stop the prune that frees it.
      this.opts.log?.warn({ err, file }, 'journal prune schedule not written');
    }
  }
}

/** What `journal check` and diag say about retention (docs/operations.md, "CLI commands"). */
export interface RetentionFacts {
  retentionDays: number;
  /** When the next prune runs (ISO), as the running agent scheduled it; null when none runs or retention is off. */
  nextPruneAt: string | null;
  /** The last run of the running agent, when it ran one. */
  lastPrune: PruneReport | null;
  /** In words, for people. */
  schedule: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // Another user's process (the agent's service user) still exists.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process id of an agent running on this journal, from its prune schedule; undefined when none runs. */
export function agentOnJournal(journalFile: string): number | undefined {
  try {
    const s = JSON.parse(readFileSync(scheduleFile(journalFile), 'utf8')) as Partial<PruneSchedule>;
    return typeof s.pid === 'number' && s.pid !== process.pid && alive(s.pid) ? s.pid : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the running agent's prune schedule beside the journal; `retentionDays` is the configuration's. */
export function retentionFacts(journalFile: string, retentionDays: number): RetentionFacts {
  const every = `${PRUNE_FIRST_DELAY_MS / 60_000} min after the agent starts, then every ${PRUNE_INTERVAL_MS / 3_600_000} h`;
  if (retentionDays <= 0)
    return {
      retentionDays,
      nextPruneAt: null,
      lastPrune: null,
      schedule: 'retention off (journal.retentionDays 0): nothing is removed',
    };
  let s: PruneSchedule | undefined;
  try {
    s = JSON.parse(readFileSync(scheduleFile(journalFile), 'utf8')) as PruneSchedule;
  } catch {
    s = undefined;
  }
  if (s === undefined || typeof s.pid !== 'number' || !alive(s.pid)) {
    return {
      retentionDays,
      nextPruneAt: null,
      lastPrune: null,
      schedule: `no agent running on this journal: it prunes ${every}`,
    };
  }
  return {
    retentionDays,
    nextPruneAt: s.nextPruneAt,
    lastPrune: s.lastPrune,
    schedule:
      s.nextPruneAt === null
        ? 'a prune is running now'
        : `next prune at ${s.nextPruneAt} (then every ${PRUNE_INTERVAL_MS / 3_600_000} h)`,
  };
}
