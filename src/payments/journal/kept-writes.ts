import type { TimerHandle, TimerSource, TimeSource } from '../../core/index.js';
import type { JournalPatch } from './types.js';
import { describeWriteFailure, isStorageError, unwritableError, type WriteFailure } from './write-failure.js';

/** Whether the journal takes writes now (docs/journal.md, "Journal", writes that fail). */
export interface JournalWriteStatus {
  writable: boolean;
  /** Outcomes kept in memory until the journal takes them. */
  pendingWrites: number;
  code?: string;
  reason?: string;
  since?: string;
}

/** An outcome SQLite refused, kept until written: the patch and when it was made. */
export interface KeptPatch {
  patch: JournalPatch;
  at: string;
}

/** What the kept writes need of the journal's connection. */
export interface KeptWritesStore {
  /** Whether the connection is open. */
  open(): boolean;
  /** Inside a transaction (the journal's or a partner's): nothing is flushed or probed then. */
  busy(): boolean;
  /** Writes every kept patch in one transaction: the rows of one answer land together or not at all. */
  writeAll(kept: ReadonlyArray<[string, KeptPatch]>): void;
  /** One real commit that changes nothing: proves the disk takes writes when nothing is kept. */
  touch(): void;
  /** Allocates room for a few rows and rolls back (SQLite refuses it when the file cannot grow). */
  probe(): void;
}

export interface KeptWritesOptions {
  store: KeptWritesStore;
  clock: Pick<TimeSource, 'wall'>;
  timers: TimerSource;
  /** First delay, longest delay and number of the bounded retries. */
  retry: { baseMs: number; capMs: number; attempts: number };
}

/**
 * The journal's writes that SQLite refused after a request left (disk full: docs/journal.md,
 * "Journal", writes that fail): each kept in memory by row, shown by every read, written
 * again with backoff until the disk takes them, and the journal reported unwritable until
 * then.
 */
export class KeptWrites {
  /** Row id -> the patch kept for it (reads overlay it). */
  readonly patches = new Map<string, KeptPatch>();
  private failure: WriteFailure | undefined;
  private timer: TimerHandle | undefined;
  private attempt = 0;

  constructor(private readonly opts: KeptWritesOptions) {}

  /** False from a write SQLite refused until the kept outcomes are written and a probe write succeeds. */
  status(): JournalWriteStatus {
    const f = this.failure;
    if (f === undefined) return { writable: true, pendingWrites: this.patches.size };
    return { writable: false, pendingWrites: this.patches.size, code: f.code, reason: f.reason, since: f.since };
  }

  /** Keeps `patch` (merged already with what was kept for the row) and schedules its retry. */
  keep(clientTransactionId: string, patch: JournalPatch): void {
    this.patches.set(clientTransactionId, { patch, at: this.isoNow() });
    this.scheduleRetry();
  }

  /** A write SQLite refused: the failure this episode reports, and a retry scheduled. */
  failed(err: unknown): WriteFailure {
    this.failure ??= describeWriteFailure(err, this.isoNow());
    this.scheduleRetry();
    return this.failure;
  }

  /** A write went through: outcomes kept in memory follow at once. */
  wrote(): void {
    if (this.failure !== undefined || this.patches.size > 0) this.flush();
  }

  /**
   * Throws JOURNAL_UNWRITABLE while the row's latest change is only kept in memory (tried
   * once more first): write-ahead for the sale a request acts on. A capture, cancel or
   * refund must not leave while the disk still shows the sale in flight: after a kill,
   * recovery would take that sale's outcome for unknown and, with its lookup failing,
   * reverse money the agent itself moved on. Without an id: every row (a capture of all
   * authorizations acts on all sales).
   */
  requireWritten(clientTransactionId?: string): void {
    const kept = (): boolean =>
      clientTransactionId === undefined ? this.patches.size > 0 : this.patches.has(clientTransactionId);
    if (!kept()) return;
    this.retry();
    if (!kept()) return;
    throw unwritableError(this.failure ?? describeWriteFailure({ code: 'SQLITE_FULL' }, this.isoNow()));
  }

  /**
   * Checks now whether the journal takes writes, as a sale start and /readyz ask: the writes
   * kept in memory are tried again, or, when there are none, a probe allocates room for a
   * few rows and rolls back (SQLite refuses it when the file cannot grow).
   */
  retry(): JournalWriteStatus {
    const store = this.opts.store;
    if (!store.open() || store.busy()) return this.status();
    if (this.failure !== undefined) {
      this.flush();
      return this.status();
    }
    try {
      store.probe();
    } catch (err) {
      if (!isStorageError(err)) throw err;
      this.failed(err);
    }
    return this.status();
  }

  close(): void {
    if (this.timer !== undefined) this.opts.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    const store = this.opts.store;
    // Inside another transaction (an offline store) the probe cannot run: the next write or the timer flushes.
    if (store.busy()) return;
    try {
      const kept = [...this.patches];
      if (kept.length > 0) {
        store.writeAll(kept);
        for (const [id, k] of kept) if (this.patches.get(id) === k) this.patches.delete(id);
      }
      if (this.patches.size === 0) {
        // Nothing kept proved it: one real commit (a file-size limit or an I/O error lets a
        // rolled-back probe through), then room for a few rows.
        if (kept.length === 0) store.touch();
        store.probe();
      }
    } catch (err) {
      if (!isStorageError(err)) throw err;
      this.scheduleRetry();
      return;
    }
    this.failure = undefined;
    this.attempt = 0;
    this.close();
  }

  /**
   * Retries with backoff. While outcomes are kept in memory they are tried for as long as it
   * takes (at the longest delay once the attempts are used up): an answer the platform gave
   * must reach the disk once space is freed, whether or not anyone starts a sale. With
   * nothing kept, the retries are bounded; then a sale start or /readyz tries again (retry).
   */
  private scheduleRetry(): void {
    const { store, retry, timers } = this.opts;
    if (this.timer !== undefined || !store.open()) return;
    if (this.attempt >= retry.attempts && this.patches.size === 0) return;
    const delay = Math.min(retry.capMs, retry.baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt += 1;
    this.timer = timers.setTimeout(() => {
      this.timer = undefined;
      try {
        if (store.open() && this.failure !== undefined) this.flush();
      } catch {
        // Not a storage fault (never expected): the next write, sale start or /readyz tries again.
      }
    }, delay);
  }

  private isoNow(): string {
    return new Date(this.opts.clock.wall()).toISOString();
  }
}
