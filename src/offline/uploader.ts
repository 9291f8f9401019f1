import {
  describeError,
  ErrorCodes,
  isAgentError,
  type BackoffOptions,
  type Clock,
  type Logger,
  type TimerHandle,
} from '../core/index.js';
import type { EventBus } from '../events/index.js';
import { isNotFound } from '../platform/index.js';
import type { CallOptions } from '../platform/index.js';
import type { ProcessRequest } from '../platform/index.js';
import type { TransactionRecord } from '../platform/index.js';
import { PlatformAvailability, type AvailabilityProbe, type SharedReach } from './availability.js';
import { MARK_FRESH_MS, MarkAhead } from './mark-ahead.js';
import { ResultCommits } from './result-commits.js';
import type { OutcomeRecorder } from './outcomes.js';
import type { OfflineQueue, PendingUpload } from './queue.js';
import type { OfflineConfig, PlatformState, QueueState } from './types.js';
import { answeredOutcome, classifyUploadFailure, deferralOf, type Deferral, type ItemResult } from './upload-result.js';

/** What the uploader needs of the platform client (src/platform/client.ts). */
export interface UploadPlatform extends AvailabilityProbe {
  process(body: ProcessRequest, opts?: CallOptions): Promise<TransactionRecord>;
  status(transactionId: string, opts?: CallOptions): Promise<TransactionRecord>;
}

export type { ItemResult } from './upload-result.js';

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

type ItemReport = FlushReport['items'][number];
/** An answered upload whose result is not on disk yet. */
interface Later {
  later: Promise<ItemReport>;
}
/** An upload that may have arrived, not found yet and inside its lookup grace: not sent, looked up again later. */
interface Waiting {
  waiting: ItemReport;
}
/** A round's report, and whether the platform gave trouble (a deferral other than a lookup grace). */
interface RoundResult {
  report: FlushReport;
  troubled: boolean;
}
/**
 * The lookups of an item waiting out its grace: how many so far, when the next is due and
 * when the grace ends, on the monotonic clock from the first lookup in this process on.
 */
interface GraceLookups {
  count: number;
  nextAtMono: number;
  endMono: number;
}

export interface UploaderOptions {
  queue: OfflineQueue;
  recorder: OutcomeRecorder;
  platform: UploadPlatform;
  bus: EventBus;
  log: Logger;
  config: OfflineConfig;
  /**
   * `payments.lookupGraceMs`: how long after an upload left a lookup that finds nothing is
   * not taken as "never arrived" (the same grace as an online sale's lookups).
   */
  lookupGraceMs: number;
  /** The agent's clock: the refusal backoff and the idle waits (docs/architecture.md, "Time"). */
  clock: Clock;
  /** Availability checks while offline and the wait after a failed round (docs/offline.md, "Offline queue": 1 s to 5 min, full jitter). */
  backoff?: BackoffOptions;
  /** Called after every round and availability change (levels, age checks). */
  onChange?: () => void;
  /** The agent's one view of the platform (PlatformWatch): read and told instead of a private one that publishes on its own. */
  reach?: SharedReach;
  /** Called after each item's try (levels). */
  onItem?: () => void;
  /** Milliseconds until the next age warning is due, so the idle loop wakes for it. */
  nextAgeEventIn?: () => number | undefined;
}

/** Longest single idle wait: timers beyond 2^31-1 ms fire at once. */
const MAX_WAIT_MS = 2 ** 31 - 1;
/** Longest wait between two lookups of an item waiting out its grace (an online sale's lookups are at most 2 s apart too). */
const GRACE_LOOKUP_CAP_MS = 2_000;

/**
 * Schedules the uploads of the offline queue (docs/offline.md, "Offline
 * queue"): while items wait it asks PlatformAvailability (full-jitter backoff); once the
 * platform answers, each sale is sent as process with `offlineTransaction: true`, its
 * original clientDateTime and client id, `offline.uploadConcurrency` at a time. Before
 * re-sending an item that may have arrived (a crash, a timeout, a 5xx) it looks the sale
 * up by client id (docs/architecture.md, "Invariants"), and keeps looking until
 * `payments.lookupGraceMs` after the request left before it sends it again; the rounds
 * meanwhile upload the other items (docs/offline.md, "Offline queue", lookup grace).
 * What a failed try means comes from upload-result.ts; what it does to the queue and the
 * journal, from OutcomeRecorder. One round at a time; `flush()` forces one now.
 */
export class Uploader {
  private readonly log: Logger;
  private readonly backoff: BackoffOptions;
  private readonly availability: PlatformAvailability;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private wakeIdle: (() => void) | undefined;
  private wakePending = false;
  private abort = new AbortController();
  private rounds = 0;
  private lastErrorText: string | undefined;
  /** Items that may have arrived and were not found yet, inside their grace (in memory: the grace itself counts from the try time on disk). */
  private readonly graceLookups = new Map<string, GraceLookups>();

  constructor(private readonly opts: UploaderOptions) {
    this.log = opts.log.child({ module: 'offline-uploader' });
    this.backoff = opts.backoff ?? { baseMs: 1_000, capMs: 5 * 60_000 };
    this.availability = new PlatformAvailability(
      opts.platform,
      this.backoff,
      opts.bus,
      this.log,
      () => this.opts.onChange?.(),
      opts.reach,
    );
  }

  get platform(): PlatformState {
    return this.availability.state;
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

  /** A payment could not reach the platform. */
  noteOffline(reason: string): void {
    this.availability.set('offline', reason);
  }

  /** Forces an upload round now (every pending item, refusal backoff ignored) and says what happened. */
  flush(): Promise<FlushReport> {
    return this.exclusive(async () => {
      const online = await this.checkAvailable();
      if (!online) return this.report('offline', []);
      const pending = this.opts.queue.pending();
      this.forgetLookups(pending);
      const done = await this.round(pending);
      this.afterRound(done);
      return done.report;
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
        wait = this.availability.nextBackoff();
      }
      if (!this.running) break;
      await this.idle(wait);
    }
  }

  /** One pass of the loop; answers how long to wait (undefined: until woken). */
  private async cycle(): Promise<number | undefined> {
    this.opts.onChange?.();
    const now = this.opts.clock.wall();
    const pending = this.opts.queue.pending();
    this.forgetLookups(pending);
    const ageIn = this.opts.nextAgeEventIn?.();
    if (pending.length === 0) return ageIn;
    const due = pending.filter((p) => this.dueIn(p, now) === 0);
    if (due.length === 0) return minDefined(Math.min(...pending.map((p) => this.dueIn(p, now))), ageIn);
    if (!(await this.checkAvailable())) return minDefined(this.availability.nextBackoff(), ageIn);
    const done = await this.round(due);
    this.afterRound(done);
    if (done.troubled) return minDefined(this.availability.nextBackoff(), ageIn);
    // Items waiting out their grace are not due again before their next lookup: the next cycle waits for it.
    return 0;
  }

  private afterRound({ report, troubled }: RoundResult): void {
    if (report.attempted > 0 && !troubled) this.availability.succeeded();
    this.opts.onChange?.();
    if (report.attempted > 0) {
      this.log.info(
        {
          attempted: report.attempted,
          uploaded: report.uploaded,
          declined: report.declinedAfterUpload,
          rejected: report.rejected,
          deferred: report.deferred,
          remaining: report.remaining,
        },
        'offline upload round',
      );
    }
  }

  /**
   * A refused item waits base * 2^(refusals-1) (no jitter: one item, one terminal) before its
   * next try; one waiting out its lookup grace, until its next lookup.
   */
  private dueIn(p: PendingUpload, now: number): number {
    if (p.item.state === 'uploading') {
      const next = this.graceLookups.get(p.item.clientTransactionId)?.nextAtMono;
      return next === undefined ? 0 : Math.max(0, next - this.opts.clock.mono());
    }
    if (p.item.rejections === 0 || p.lastTryAtMs === undefined) return 0;
    const wait = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** Math.min(p.item.rejections - 1, 30));
    return Math.max(0, p.lastTryAtMs + wait - now);
  }

  private checkAvailable(): Promise<boolean> {
    return this.availability.check(this.abort.signal);
  }

  /** Uploads the given items with bounded concurrency; the first sign of platform trouble ends the round. */
  private async round(items: PendingUpload[]): Promise<RoundResult> {
    this.rounds++;
    try {
      const done = await this.runRound(items);
      if (done.report.attempted > 0 && !done.troubled) this.lastErrorText = undefined;
      return done;
    } finally {
      this.rounds--;
    }
  }

  private async runRound(items: PendingUpload[]): Promise<RoundResult> {
    const results: FlushReport['items'] = [];
    let next = 0;
    let stopped = false;
    // Items not found yet inside their grace: reported as deferred, but not the platform's trouble.
    let waiting = 0;
    // Answered uploads are written in groups (result-commits.ts), the first of them with the
    // next "sending" mark; levels are published once per commit instead of once per sale.
    const commits = new ResultCommits(this.opts.recorder, this.opts.clock, () => this.opts.onItem?.());
    const ahead = new MarkAhead(
      this.opts.queue,
      items,
      (mark) => commits.commit(mark) ?? [],
      () => this.opts.clock.wall(),
    );
    // Each settled upload clears its card data; one scrub at the end of the round (at most
    // a second later) instead of one per sale, each a checkpoint and two fsyncs
    // (docs/journal.md, "Journal", card data at rest).
    const releaseScrub = this.opts.recorder.holdScrub();
    // Results whose commit is still to come: the worker goes on with its next sale meanwhile.
    const settling: Array<Promise<void>> = [];
    // Once a request is out, the next "sending" mark (with the results waiting) is written
    // on the next turn, while the platform answers (mark-ahead.ts, topUp).
    let topUpDue = false;
    const sent = (): void => {
      if (topUpDue) return;
      topUpDue = true;
      setImmediate(() => {
        topUpDue = false;
        if (stopped || this.abort.signal.aborted) return;
        try {
          ahead.topUp(next);
        } catch (err) {
          // The results it carried are failed by the commit; the next request marks its own item first.
          this.log.warn({ err: describeError(err) }, 'offline uploads could not be marked ahead');
        }
      });
    };
    const worker = async (): Promise<void> => {
      while (!stopped && !this.abort.signal.aborted && next < items.length) {
        const index = next++;
        const p = items[index] as PendingUpload;
        const r = await this.uploadOne(p, ahead.take(index), commits, sent);
        if ('waiting' in r) {
          // The round goes on with the next item (docs/offline.md, "Offline queue", lookup grace).
          results.push(r.waiting);
          waiting += 1;
          continue;
        }
        if ('later' in r) {
          settling.push(
            r.later.then((done) => {
              results.push(done);
              if (done.result === 'deferred') stopped = true;
            }),
          );
          continue;
        }
        results.push(r);
        this.opts.onItem?.();
        if (r.result === 'deferred') stopped = true;
      }
    };
    const n = Math.max(1, Math.min(this.opts.config.uploadConcurrency, items.length));
    try {
      await Promise.all(Array.from({ length: n }, worker));
    } finally {
      try {
        // Every answered upload is on disk before the round reports, ends or releases the scrub.
        commits.close();
        const failed = (await Promise.allSettled(settling)).find((s) => s.status === 'rejected');
        // A result that could not be written nor deferred (the disk refuses everything): the round fails.
        // It replaces a worker's own error: a result neither written nor deferred is the worse one.
        // eslint-disable-next-line no-unsafe-finally
        if (failed !== undefined) throw failed.reason;
      } finally {
        ahead.release();
        releaseScrub();
      }
    }
    const report = this.report('online', results);
    return { report, troubled: report.deferred > waiting };
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

  /**
   * `marked`: the item was queued and is marked `uploading` already (MarkAhead), so it can be
   * sent at once. An answered upload comes back as a promise of its result, settled once
   * its group of results is on disk (`commits`); anything else is written before this returns.
   * `sent` is called once its request is out.
   */
  private async uploadOne(
    p: PendingUpload,
    marked: boolean,
    commits: ResultCommits,
    sent: () => void,
  ): Promise<ItemReport | Later | Waiting> {
    const id = p.item.clientTransactionId;
    const call: CallOptions = {
      signal: this.abort.signal,
      ...(p.item.merchantId !== undefined ? { merchantId: p.item.merchantId } : {}),
    };
    const { recorder } = this.opts;
    const result = (r: ItemResult, item: { state: QueueState; message?: string }): ItemReport => ({
      clientTransactionId: id,
      result: r,
      state: item.state,
      ...(item.message !== undefined ? { message: item.message } : {}),
    });
    // Wrapped: an async function would wait for a promise it returns, and so for the commit.
    const settled = (record: TransactionRecord, outcome: 'accepted' | 'declined' | 'found'): Later => ({
      later: commits.settle(id, record, outcome).then(
        (item) => result(item.state === 'uploaded' ? 'uploaded' : 'declined_after_upload', item),
        // Its result could not be written: handled as a failed write always was (the item stays marked for a lookup).
        (err: unknown) => this.failed(id, err, result),
      ),
    });
    try {
      if (p.item.state === 'uploading') {
        // It may have arrived before (crash, timeout, 5xx): look it up by client id first.
        const lookedAt = this.opts.clock.mono();
        try {
          const found = await this.opts.platform.status(id, call);
          this.graceLookups.delete(id);
          return settled(found, 'found');
        } catch (err) {
          // Its merchant is no longer this terminal's: no lookup will ever answer, and holding
          // it would hold up every sale queued after it (docs/payments.md, "Offline card
          // sale and upload", merchant of an offline sale).
          if (isAgentError(err, ErrorCodes.AUTH_NO_MERCHANT)) {
            this.graceLookups.delete(id);
            return result(
              'needs_attention',
              recorder.unresolvable(
                id,
                `${describeError(err)}; it may have reached the platform: check it with the acquirer before anything else`,
              ),
            );
          }
          if (!isNotFound(err)) return result('deferred', this.defer(id, deferralOf(err, true)));
          // The platform's lookups may lag its writes, and a repeated client id is not promised
          // to be recognised: "not found" is its word only once the grace since the request
          // left has passed (docs/offline.md, "Offline queue", lookup grace).
          const graceEnd = this.graceLookups.get(id)?.endMono ?? this.graceEnd(p, lookedAt);
          if (lookedAt < graceEnd)
            return {
              waiting: result('deferred', { state: 'uploading', message: this.lookAgain(id, lookedAt, graceEnd) }),
            };
          this.graceLookups.delete(id);
          recorder.notFound(id);
        }
      }
      // Its own mark, with whatever results wait (one commit).
      if (!marked) commits.commit(() => this.opts.queue.markUploading([id]));
      const answer = this.opts.platform.process({ ...p.body, offlineTransaction: true }, call);
      sent();
      const record = await answer;
      return settled(record, answeredOutcome(record));
    } catch (err) {
      return this.failed(id, err, result);
    }
  }

  /**
   * When the lookup grace of an item that may have arrived ends, on the monotonic clock
   * (`mono` is now): `payments.lookupGraceMs` after its request left. That is at most
   * MARK_FRESH_MS after its try time on disk, which a crash leaves as it was
   * (mark-ahead.ts); an item without one (a queue written before try times were kept)
   * counts from its last change. The wall clock is read once, at the item's first lookup in
   * this process, as the online sale's lookups do (src/payments/lookup.ts): a clock step
   * afterwards neither ends nor stretches the grace (docs/architecture.md, "Time").
   */
  private graceEnd(p: PendingUpload, mono: number): number {
    const triedAt = p.lastTryAtMs ?? Date.parse(p.item.updatedAt);
    return mono + Math.max(0, triedAt + MARK_FRESH_MS + this.opts.lookupGraceMs - this.opts.clock.wall());
  }

  /** Schedules the next lookup of an item not found yet inside its grace (never after the grace ends); answers what staff see. */
  private lookAgain(id: string, now: number, graceEnd: number): string {
    const count = (this.graceLookups.get(id)?.count ?? 0) + 1;
    const wait = Math.min(GRACE_LOOKUP_CAP_MS, this.backoff.baseMs * 2 ** Math.min(count - 1, 30));
    this.graceLookups.set(id, { count, nextAtMono: Math.min(now + wait, graceEnd), endMono: graceEnd });
    const until = new Date(this.opts.clock.wall() + (graceEnd - now)).toISOString();
    this.log.debug(
      { clientTransactionId: id, lookups: count, graceEndsAt: until },
      'offline upload not found yet: looked up again within the grace',
    );
    return `not found at the platform yet (it may still show it: its lookups can lag): looked up again until ${until}, sent again only if still not found then`;
  }

  /** Drops the lookups of items no longer waiting (settled, needing attention, sent again). */
  private forgetLookups(pending: readonly PendingUpload[]): void {
    if (this.graceLookups.size === 0) return;
    const waiting = new Set(pending.filter((p) => p.item.state === 'uploading').map((p) => p.item.clientTransactionId));
    for (const id of this.graceLookups.keys()) if (!waiting.has(id)) this.graceLookups.delete(id);
  }

  private failed(
    id: string,
    err: unknown,
    result: (r: ItemResult, item: { state: QueueState; message?: string }) => ItemReport,
  ): ItemReport {
    const failure = classifyUploadFailure(err);
    if (failure.kind === 'rejected') {
      const item = this.opts.recorder.rejected(id, failure.message, failure.status, this.opts.config.maxAttempts);
      return result(item.state === 'needs_attention' ? 'needs_attention' : 'rejected', item);
    }
    if (failure.kind === 'unsendable')
      return result('needs_attention', this.opts.recorder.unsendable(id, failure.message));
    return result('deferred', this.defer(id, failure));
  }

  /** Platform trouble: the item waits; an `unknown` outcome keeps it marked for a lookup. */
  private defer(id: string, d: Deferral): { state: QueueState; message?: string } {
    this.lastErrorText = d.message;
    if (d.platformDown) this.availability.set('offline', d.message);
    if (d.unexpected) this.log.error({ clientTransactionId: id, err: d.message }, 'offline upload failed unexpectedly');
    if (d.retryAfterMs !== undefined) this.availability.retryAfter(d.retryAfterMs);
    return this.opts.recorder.deferred(id, d.outcome, d.message, d.status);
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
      let timer: TimerHandle | undefined;
      const done = (): void => {
        if (timer !== undefined) this.opts.clock.clearTimeout(timer);
        this.wakeIdle = undefined;
        this.wakePending = false;
        resolve();
      };
      this.wakeIdle = done;
      if (ms !== undefined) timer = this.opts.clock.setTimeout(done, Math.min(ms, MAX_WAIT_MS));
    });
  }
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
