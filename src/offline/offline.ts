import type { Database } from 'better-sqlite3';
import { AgentError, ErrorCodes, systemClock, type BackoffOptions, type Clock, type Logger } from '../core/index.js';
import { configSchema } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { OfflineHook, OfflineSaleReports, RetentionPartner } from '../payments/index.js';
import { AgeWatch, type AgeWarning } from './age-watch.js';
import type { SharedReach } from './availability.js';
import { OutcomeRecorder } from './outcomes.js';
import { computeLevels, eligibilityError, limitError } from './policy.js';
import { OfflineQueue, type ListQueueOptions } from './queue.js';
import { offlineRetention } from './retention.js';
import { ensureOfflineSchema } from './schema.js';
import type {
  OfflineCandidate,
  OfflineConfig,
  OfflineDecision,
  OfflineLevels,
  OfflineSale,
  QueueItem,
  QueueState,
} from './types.js';
import { Uploader, type FlushReport, type UploadPlatform } from './uploader.js';

export interface OfflineDeps {
  /**
   * The connection of the journal's file, where the queue's tables live (the composition
   * root opens the journal and hands this over). Offline's SQL on it names its own tables only.
   */
  db: Database;
  /**
   * What offline tells payments of its sales (`offlineSaleReports`): every change of a
   * journal row, in the transaction payments opens for it (docs/offline.md, "Offline and payments").
   */
  reports: OfflineSaleReports;
  platform: UploadPlatform;
  bus: EventBus;
  log: Logger;
  /** `config.offline`. */
  config: OfflineConfig;
  /**
   * `payments.lookupGraceMs`: an upload that may have arrived is sent again only when the
   * platform has shown no trace of it for this long after it left (default: the setting's default).
   */
  lookupGraceMs?: number;
  /** The agent's clock (docs/architecture.md, "Time"); default the system clock. */
  clock?: Clock;
  backoff?: BackoffOptions;
  /** The agent's PlatformWatch: the one view of the platform (see availability.ts). */
  reach?: SharedReach;
}

/**
 * What PaymentService calls (the `OfflineHook` payments defines):
 * `eligible` when a card sale's process call never reached the platform, `store` inside
 * the transaction that marks the journal row `offline_stored`.
 */
export interface OfflineHookImpl extends OfflineHook {
  /** Before reading the card: may this sale still go offline (limits, currency)? Tells the reader `offlineAllowed`. */
  allowed(sale: Pick<OfflineCandidate['sale'], 'kind' | 'method' | 'amount' | 'currency'>): OfflineDecision;
  eligible(candidate: OfflineCandidate): OfflineDecision;
  /** Same as eligible, throwing the AgentError (OFFLINE_NOT_ELIGIBLE / OFFLINE_LIMIT). */
  check(candidate: OfflineCandidate): void;
  /** Synchronous, inside the caller's transaction; throws (rolling back) when a limit is broken meanwhile. */
  store(sale: OfflineSale): void;
}

export interface OfflineUploaderControl {
  start(): void;
  stop(): Promise<void>;
  flush(): Promise<FlushReport>;
  /** Re-evaluate now (e.g. a payment saw the platform answer again). */
  wake(): void;
}

/** Levels as the local API shows them (src/ui/shared/sources.ts OfflineLevelsView; minor units per currency). */
export interface OfflineLevelsSummary {
  enabled: boolean;
  count: number;
  maxCount: number;
  totals: Record<string, number>;
  maxTotal: Record<string, number>;
  floorLimits: Record<string, number>;
  oldestCreatedAt?: string;
  needsAttention: number;
  /** Items in each queue state, the whole queue (a paged list cannot count them). */
  states: Record<QueueState, number>;
  uploading: boolean;
  lastError?: string;
}

export interface Offline {
  hook: OfflineHookImpl;
  /** For the local API (its OfflineApiSource): GET /api/v1/offline, POST /api/v1/offline/flush. */
  api: { levels(): OfflineLevelsSummary; flush(): Promise<FlushReport> };
  uploader: OfflineUploaderControl;
  levels(): OfflineLevels;
  list(opts?: ListQueueOptions): QueueItem[];
  get(clientTransactionId: string): QueueItem | undefined;
  /** Puts a sale needing attention back into the queue (staff fixed the cause); refusals count from zero. */
  requeue(clientTransactionId: string): QueueItem;
  /** Runs the age checks now (the uploader's loop also does); returns the warnings raised. */
  checkAges(): AgeWarning[];
  /** The queue's part in journal retention (docs/journal.md, "Retention"). */
  retention: RetentionPartner;
}

function decision(err: AgentError | undefined): OfflineDecision {
  if (err === undefined) return { ok: true };
  return {
    ok: false,
    reason: err.message,
    code: err.code === ErrorCodes.OFFLINE_LIMIT ? ErrorCodes.OFFLINE_LIMIT : ErrorCodes.OFFLINE_NOT_ELIGIBLE,
  };
}

function levelsKey(l: OfflineLevels): string {
  return JSON.stringify([
    l.enabled,
    l.platform,
    l.count.stored,
    l.totals.map((t) => [t.currency, t.stored]),
    l.age.oldestClientTransactionId,
    l.states,
  ]);
}

/**
 * The offline store-and-forward component (docs/offline.md, "Offline queue"): policy, queue, uploader and age
 * warnings over the journal's database. Built by the composition root; nothing here is
 * module state, so several instances (tests, a restarted agent) live side by side.
 */
export function createOffline(deps: OfflineDeps): Offline {
  const clock = deps.clock ?? systemClock();
  const log = deps.log.child({ module: 'offline' });
  const cfg = deps.config;
  const { db, reports } = deps;
  ensureOfflineSchema(db, (ids) => reports.operatorsOf(ids));
  reports.watchCardData('offline_queue', 'body');
  const queue = new OfflineQueue(db, clock);
  const ages = new AgeWatch(queue, cfg, deps.bus, log);
  const recorder = new OutcomeRecorder(queue, reports, deps.bus, log, clock);
  let lastLevels: string | undefined;

  const levels = (): OfflineLevels =>
    computeLevels(cfg, queue.stats(), queue.stateCounts(), uploader.platform, clock.wall());

  const publishLevels = (): void => {
    const l = levels();
    const key = levelsKey(l);
    if (key === lastLevels) return;
    lastLevels = key;
    deps.bus.publish('offline.levels', l);
  };

  const uploader = new Uploader({
    queue,
    recorder,
    platform: deps.platform,
    bus: deps.bus,
    log: deps.log,
    config: cfg,
    lookupGraceMs: deps.lookupGraceMs ?? configSchema.shape.payments.parse({}).lookupGraceMs,
    clock,
    ...(deps.backoff !== undefined ? { backoff: deps.backoff } : {}),
    ...(deps.reach !== undefined ? { reach: deps.reach } : {}),
    onChange: () => {
      ages.check(clock.wall());
      publishLevels();
    },
    onItem: publishLevels,
    nextAgeEventIn: () => ages.nextIn(clock.wall()),
  });

  /**
   * After-commit work of a store. Each sale gets its log line and its `offline.item` in a
   * microtask right after the caller's transaction (before any upload of it can be
   * recorded); the queue-wide pass (platform state, age checks, levels, uploader wake-up)
   * runs once per event-loop turn for however many sales that turn stored, and always
   * reads the queue as it is then, so the levels it publishes are current.
   */
  let queueWidePending = false;
  const afterStores = (): void => {
    queueWidePending = false;
    // The journal was closed in this turn (shutdown): nothing left to publish.
    if (!db.open) return;
    try {
      uploader.noteOffline('a sale could not reach the platform');
      ages.check(clock.wall());
      publishLevels();
      uploader.wake();
    } catch (err) {
      log.error({ err: (err as Error).message }, 'after storing offline sales');
    }
  };

  const afterStore = (item: QueueItem): void => {
    const { clientTransactionId, amount, currency, maskedPan } = item;
    try {
      // Runs after the caller's transaction: a rolled-back store has no row and says nothing.
      if (!queue.has(clientTransactionId)) return;
      log.info({ clientTransactionId, amount, currency, maskedPan }, 'offline sale stored');
      deps.bus.publish('offline.item', { clientTransactionId, state: item.state, amount, currency });
      if (!queueWidePending) {
        queueWidePending = true;
        setImmediate(afterStores);
      }
    } catch (err) {
      log.error({ clientTransactionId, err: (err as Error).message }, 'after storing an offline sale');
    }
  };

  const allowedError = (
    sale: Pick<OfflineCandidate['sale'], 'kind' | 'method' | 'amount' | 'currency'>,
  ): AgentError | undefined =>
    eligibilityError(cfg, {
      sale: { clientTransactionId: '', merchantId: undefined, ...sale },
      entryMode: 'ContactChip',
      maskedPan: '',
      scheme: '',
      offlineApproved: true,
    }) ?? limitError(cfg, queue.stats(), sale.amount, sale.currency, clock.wall());

  const candidateError = (c: OfflineCandidate): AgentError | undefined =>
    eligibilityError(cfg, c) ?? limitError(cfg, queue.stats(), c.sale.amount, c.sale.currency, clock.wall());

  const hook: OfflineHookImpl = {
    allowed: (sale) => decision(allowedError(sale)),
    eligible: (c) => decision(candidateError(c)),
    check(c) {
      const err = candidateError(c);
      if (err !== undefined) throw err;
    },
    store(sale) {
      // Checked again inside the transaction: another sale may have been stored since `eligible`.
      const err = allowedError(sale.row);
      if (err !== undefined) throw err;
      const item = queue.insert(sale);
      queueMicrotask(() => afterStore(item));
    },
  };

  const summary = (): OfflineLevelsSummary => {
    const stats = queue.stats();
    const states = queue.stateCounts();
    const lastError = uploader.lastError;
    return {
      enabled: cfg.enabled,
      count: stats.count,
      maxCount: cfg.maxCount,
      totals: stats.totals,
      maxTotal: { ...cfg.maxTotal },
      floorLimits: { ...cfg.floorLimits },
      ...(stats.oldest !== undefined ? { oldestCreatedAt: new Date(stats.oldest.storedAtMs).toISOString() } : {}),
      needsAttention: states.needs_attention,
      states,
      uploading: uploader.busy,
      ...(lastError !== undefined ? { lastError } : {}),
    };
  };

  return {
    hook,
    api: { levels: summary, flush: () => uploader.flush() },
    uploader: {
      start: () => {
        publishLevels();
        uploader.start();
      },
      stop: () => uploader.stop(),
      flush: () => uploader.flush(),
      wake: () => uploader.wake(),
    },
    levels,
    list: (opts) => queue.list(opts),
    get: (id) => queue.get(id),
    requeue: (id) => {
      const item = recorder.requeued(id);
      publishLevels();
      uploader.wake();
      return item;
    },
    checkAges: () => {
      const warnings = ages.check(clock.wall());
      publishLevels();
      return warnings;
    },
    retention: offlineRetention(db),
  };
}
