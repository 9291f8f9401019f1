import { backoffDelay, type BackoffOptions } from '../core/backoff.js';
import { describeError, ErrorCodes, isAgentError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import { isNotFound, isPlatformError } from '../platform/errors.js';
import type { CallOptions } from '../platform/client.js';
import type { ProcessRequest } from '../platform/schemas/requests.js';
import type { TransactionRecord } from '../platform/schemas/responses.js';
import type { OutcomeRecorder } from './outcomes.js';
import type { OfflineQueue, PendingUpload } from './queue.js';
import type { OfflineConfig, PlatformState, QueueState } from './types.js';

/** What the uploader needs of the platform client (src/platform/client.ts). */
export interface UploadPlatform {
  process(body: ProcessRequest, opts?: CallOptions): Promise<TransactionRecord>;
  status(transactionId: string, opts?: CallOptions): Promise<TransactionRecord>;
  isAvailable(opts?: CallOptions): Promise<boolean>;
}

export type ItemResult = 'uploaded' | 'declined_after_upload' | 'rejected' | 'needs_attention' | 'deferred';

export interface FlushReport {
  /** What isAvailable said before the uploads. */
  platform: 'online' | 'offline';
  attempted: number;
  uploaded: number;
  declinedAfterUpload: number;
  /** Refused by the platform, to be tried again. */
  rejected: number;
  needsAttention: number;
  /** Left for the next try (unreachable, timeout, 5xx): not counted as refusals. */
  deferred: number;
  /** Attempted and not uploaded (declined, refused, needing attention or deferred). */
  failed: number;
  /** Still waiting for upload afterwards. */
  remaining: number;
  items: Array<{ clientTransactionId: string; result: ItemResult; state: QueueState; message?: string }>;
}

export interface UploaderTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface UploaderOptions {
  queue: OfflineQueue;
  recorder: OutcomeRecorder;
  platform: UploadPlatform;
  bus: EventBus;
  log: Logger;
  config: OfflineConfig;
  now?: () => number;
  /** Availability checks while offline and the wait after a failed round (DESIGN.md: 1 s to 5 min, full jitter). */
  backoff?: BackoffOptions;
  timers?: UploaderTimers;
  /** Called after every round and availability change (levels, age checks). */
  onChange?: () => void;
  /** Called after each item's try (levels). */
  onItem?: () => void;
  /** Milliseconds until the next age warning is due, so the idle loop wakes for it. */
  nextAgeEventIn?: () => number | undefined;
}

const realTimers: UploaderTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Longest single idle wait: timers beyond 2^31-1 ms fire at once. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * Uploads the offline queue (issue 6, DESIGN.md "offline upload"): while items wait it
 * asks the platform's isAvailable with full-jitter backoff; once it answers, each sale is
 * sent as process with `offlineTransaction: true`, its original clientDateTime and client
 * id, `offline.uploadConcurrency` at a time. Before re-sending an item that may have
 * arrived (a crash, a timeout, a 5xx) it looks the sale up by client id (DESIGN.md:
 * Unknown outcome). A refusal (4xx) counts towards `offline.maxAttempts`; anything that
 * looks like the platform's trouble is tried again later without counting. One round at
 * a time; `flush()` forces one now.
 */
export class Uploader {
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly backoff: BackoffOptions;
  private readonly timers: UploaderTimers;
  private platformState: PlatformState = 'unknown';
  private failures = 0;
  /** Retry-After of the platform's last refusal-for-now (429/503), a floor for the next wait. */
  private retryAfterMs: number | undefined;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private wakeIdle: (() => void) | undefined;
  private wakePending = false;
  private abort = new AbortController();
  private rounds = 0;
  private lastErrorText: string | undefined;

  constructor(private readonly opts: UploaderOptions) {
    this.log = opts.log.child({ module: 'offline-uploader' });
    this.now = opts.now ?? Date.now;
    this.backoff = opts.backoff ?? { baseMs: 1_000, capMs: 5 * 60_000 };
    this.timers = opts.timers ?? realTimers;
  }

  get platform(): PlatformState {
    return this.platformState;
  }

  /** An upload round is running. */
  get busy(): boolean {
    return this.rounds > 0;
  }

  /** Why the last try was deferred, until a round goes through cleanly. */
  get lastError(): string | undefined {
    return this.lastErrorText;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.loopDone = this.loop();
  }

  /** Stops the loop; a request in flight is aborted (its item is looked up on the next start). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort.abort(new Error('offline uploader stopping'));
    this.wake();
    await this.loopDone;
    await this.lock.catch(() => undefined);
  }

  /** Something changed (a sale stored, the platform seen again): re-evaluate now. */
  wake(): void {
    this.wakePending = true;
    const w = this.wakeIdle;
    this.wakeIdle = undefined;
    w?.();
  }

  /** The payments engine could not reach the platform. */
  noteOffline(reason: string): void {
    this.setPlatform('offline', reason);
  }

  /** Forces an upload round now (every pending item, refusal backoff ignored) and says what happened. */
  flush(): Promise<FlushReport> {
    return this.exclusive(async () => {
      const online = await this.checkAvailable();
      if (!online) return this.report('offline', []);
      const report = await this.round(this.opts.queue.pending());
      this.afterRound(report);
      return report;
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let wait: number | undefined;
      try {
        wait = await this.exclusive(() => this.cycle());
      } catch (err) {
        // Never leaves the loop: a database or bus fault is logged and tried again later.
        this.log.error({ err: describeError(err) }, 'offline upload round failed');
        wait = this.nextBackoff();
      }
      if (!this.running) break;
      await this.idle(wait);
    }
  }

  /** One pass of the loop; answers how long to wait (undefined: until woken). */
  private async cycle(): Promise<number | undefined> {
    this.opts.onChange?.();
    const now = this.now();
    const pending = this.opts.queue.pending();
    const ageIn = this.opts.nextAgeEventIn?.();
    if (pending.length === 0) return ageIn;
    const due = pending.filter((p) => this.dueIn(p, now) === 0);
    if (due.length === 0) return minDefined(Math.min(...pending.map((p) => this.dueIn(p, now))), ageIn);
    if (!(await this.checkAvailable())) return minDefined(this.nextBackoff(), ageIn);
    const report = await this.round(due);
    this.afterRound(report);
    if (report.deferred > 0) return minDefined(this.nextBackoff(), ageIn);
    return 0;
  }

  private nextBackoff(): number {
    const wait = backoffDelay(this.failures++, this.backoff, this.retryAfterMs);
    this.retryAfterMs = undefined;
    return wait;
  }

  private afterRound(report: FlushReport): void {
    if (report.attempted > 0 && report.deferred === 0) this.failures = 0;
    this.opts.onChange?.();
    if (report.attempted > 0) {
      this.log.info(
        { attempted: report.attempted, uploaded: report.uploaded, declined: report.declinedAfterUpload, rejected: report.rejected, deferred: report.deferred, remaining: report.remaining },
        'offline upload round',
      );
    }
  }

  /** A refused item waits base * 2^(refusals-1) (no jitter: one item, one terminal) before its next try. */
  private dueIn(p: PendingUpload, now: number): number {
    if (p.item.rejections === 0 || p.item.state === 'uploading' || p.lastTryAtMs === undefined) return 0;
    const wait = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** Math.min(p.item.rejections - 1, 30));
    return Math.max(0, p.lastTryAtMs + wait - now);
  }

  private async checkAvailable(): Promise<boolean> {
    const ok = await this.opts.platform.isAvailable({ signal: this.abort.signal });
    this.setPlatform(ok ? 'online' : 'offline', ok ? undefined : 'isAvailable did not answer 200');
    return ok;
  }

  private setPlatform(state: 'online' | 'offline', reason?: string): void {
    if (this.platformState === state) return;
    this.platformState = state;
    this.log.info({ platform: state, reason }, state === 'online' ? 'platform reachable: uploading offline sales' : 'platform not reachable');
    this.opts.bus.publish('platform.status', { online: state === 'online', ...(reason !== undefined ? { reason } : {}) });
    this.opts.onChange?.();
  }

  /** Uploads the given items with bounded concurrency; the first sign of platform trouble ends the round. */
  private async round(items: PendingUpload[]): Promise<FlushReport> {
    this.rounds++;
    try {
      const report = await this.runRound(items);
      if (report.attempted > 0 && report.deferred === 0) this.lastErrorText = undefined;
      return report;
    } finally {
      this.rounds--;
    }
  }

  private async runRound(items: PendingUpload[]): Promise<FlushReport> {
    const results: FlushReport['items'] = [];
    let next = 0;
    let stopped = false;
    const ahead = new MarkAhead(this.opts.queue, items);
    const worker = async (): Promise<void> => {
      while (!stopped && !this.abort.signal.aborted && next < items.length) {
        const index = next++;
        const p = items[index] as PendingUpload;
        const r = await this.uploadOne(p, ahead.take(index));
        results.push(r);
        this.opts.onItem?.();
        if (r.result === 'deferred') stopped = true;
      }
    };
    const n = Math.max(1, Math.min(this.opts.config.uploadConcurrency, items.length));
    try {
      await Promise.all(Array.from({ length: n }, worker));
    } finally {
      ahead.release();
    }
    return this.report('online', results);
  }

  private report(platform: 'online' | 'offline', items: FlushReport['items']): FlushReport {
    const count = (r: ItemResult): number => items.filter((i) => i.result === r).length;
    return {
      platform,
      attempted: items.length,
      uploaded: count('uploaded'),
      declinedAfterUpload: count('declined_after_upload'),
      rejected: count('rejected'),
      needsAttention: count('needs_attention'),
      deferred: count('deferred'),
      failed: items.length - count('uploaded'),
      remaining: this.opts.queue.pendingCount(),
      items,
    };
  }

  /** `marked`: the item was queued and is marked `uploading` already (MarkAhead), so it can be sent at once. */
  private async uploadOne(p: PendingUpload, marked: boolean): Promise<FlushReport['items'][number]> {
    const id = p.item.clientTransactionId;
    const call: CallOptions = { signal: this.abort.signal, ...(p.item.merchantId !== undefined ? { merchantId: p.item.merchantId } : {}) };
    const { recorder } = this.opts;
    const result = (r: ItemResult, item: { state: QueueState; message?: string }): FlushReport['items'][number] => ({
      clientTransactionId: id,
      result: r,
      state: item.state,
      ...(item.message !== undefined ? { message: item.message } : {}),
    });
    try {
      if (p.item.state === 'uploading') {
        // It may have arrived before (crash, timeout, 5xx): look it up by client id first.
        try {
          const found = await this.opts.platform.status(id, call);
          const item = recorder.settled(id, found, 'found');
          return result(item.state === 'uploaded' ? 'uploaded' : 'declined_after_upload', item);
        } catch (err) {
          if (!isNotFound(err)) return result('deferred', this.defer(id, err, true));
          recorder.notFound(id);
        }
      }
      if (!marked) this.opts.queue.markUploading([id]);
      const record = await this.opts.platform.process({ ...p.body, offlineTransaction: true }, call);
      const item = recorder.settled(id, record, record.transactionStatus === 'Refused' ? 'declined' : 'accepted');
      return result(item.state === 'uploaded' ? 'uploaded' : 'declined_after_upload', item);
    } catch (err) {
      if (isPlatformError(err) && err.category === 'rejected' && err.status !== 429) {
        const item = recorder.rejected(id, describeError(err), err.status, this.opts.config.maxAttempts);
        return result(item.state === 'needs_attention' ? 'needs_attention' : 'rejected', item);
      }
      if (isAgentError(err, ErrorCodes.PLATFORM_BAD_REQUEST)) return result('needs_attention', recorder.unsendable(id, describeError(err)));
      return result('deferred', this.defer(id, err, false));
    }
  }

  /** Platform trouble: the item waits; `mayHaveArrived` keeps it marked for a lookup. */
  private defer(id: string, err: unknown, lookupFailed: boolean): { state: QueueState; message?: string } {
    const message = describeError(err);
    this.lastErrorText = message;
    const unknown = lookupFailed || (isPlatformError(err) && err.outcomeUnknown) || !isPlatformError(err);
    if (isPlatformError(err) && (err.category === 'network' || err.category === 'timeout' || err.category === 'auth')) {
      this.setPlatform('offline', message);
    }
    if (!isAgentError(err)) this.log.error({ clientTransactionId: id, err: message }, 'offline upload failed unexpectedly');
    const status = isPlatformError(err) ? err.status : undefined;
    if (isPlatformError(err) && err.retryAfterMs !== undefined) this.retryAfterMs = err.retryAfterMs;
    return this.opts.recorder.deferred(id, unknown ? 'unknown' : 'unavailable', message, status);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private idle(ms: number | undefined): Promise<void> {
    if (this.wakePending) {
      this.wakePending = false;
      return Promise.resolve();
    }
    if (ms === 0) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: unknown;
      const done = (): void => {
        if (timer !== undefined) this.timers.clearTimeout(timer);
        this.wakeIdle = undefined;
        this.wakePending = false;
        resolve();
      };
      this.wakeIdle = done;
      if (ms !== undefined) timer = this.timers.setTimeout(done, Math.min(ms, MAX_WAIT_MS));
    });
  }
}

/** Queued items marked `uploading` per durable write, ahead of their requests. */
const MARK_AHEAD = 16;

/**
 * The durable "may have been sent" mark of a round's queued items, written for up to
 * MARK_AHEAD items at a time instead of once per item, so an upload costs about one durable
 * write (its result) instead of two.
 *
 * Why it is as safe as one mark per item (invariants 1 and 2, DESIGN.md "Unknown outcome"):
 * every item is still marked, durably, before its request leaves; an item marked and not
 * yet sent is only "may have been sent" too early. After a crash such an item is looked up
 * by its client id before it is sent (not found: sent then), exactly as one whose request
 * did leave; so at most MARK_AHEAD sales per crash cost an extra lookup, and none is sent
 * twice. When the round ends before their requests start (platform trouble, stop), the items
 * go back to `queued` in one write, as they were. Items already `uploading` at the start
 * (a previous try may have arrived) are not marked ahead: they keep the lookup first, then
 * their own mark just before their request.
 *
 * Not done, on purpose: sending without any mark and counting on the platform answering a
 * repeated clientNewTransactionId with the existing transaction. The demo platform does, but
 * the platform spec does not promise it, and DESIGN.md has the agent look up before
 * re-sending; a platform that took the repeat as a new sale would charge the customer twice.
 */
class MarkAhead {
  private readonly marked = new Set<number>();
  private readonly unsent = new Set<number>();

  constructor(
    private readonly queue: OfflineQueue,
    private readonly items: readonly PendingUpload[],
  ) {}

  /** Item `index`'s request is about to start: whether it is marked (marks the next few queued items first when it is not). */
  take(index: number): boolean {
    const p = this.items[index];
    if (p === undefined || p.item.state !== 'queued') return false;
    if (!this.marked.has(index)) {
      const batch: number[] = [];
      for (let i = index; i < this.items.length && batch.length < MARK_AHEAD; i++) {
        if (!this.marked.has(i) && this.items[i]?.item.state === 'queued') batch.push(i);
      }
      const done = new Set(this.queue.markUploading(batch.map((i) => (this.items[i] as PendingUpload).item.clientTransactionId)));
      for (const i of batch) {
        if (!done.has((this.items[i] as PendingUpload).item.clientTransactionId)) continue;
        this.marked.add(i);
        this.unsent.add(i);
      }
    }
    this.unsent.delete(index);
    return this.marked.has(index);
  }

  /** The round is over: items marked ahead whose request never started go back to `queued`. */
  release(): void {
    const back = [...this.unsent].map((i) => this.items[i] as PendingUpload);
    this.unsent.clear();
    this.queue.unmarkUnsent(back.map((p) => ({ clientTransactionId: p.item.clientTransactionId, lastTryAtMs: p.lastTryAtMs })));
  }
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
