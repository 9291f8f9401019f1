import { randomUUID } from 'node:crypto';
import type { Config } from '../config/index.js';
import { describeError, systemClock, type Clock, type Logger } from '../core/index.js';
import type { Peripherals } from '../devices/index.js';
import type { EventBus } from '../events/index.js';
import type { CallOptions, PlatformClient } from '../platform/index.js';
import type { PendingTracking, TransactionView } from './api.js';
import { FINAL_STATES, type Journal, type JournalPatch, type JournalRow } from './journal/index.js';
import type { OfflineHook } from './offline-hook.js';
import { toView } from './view.js';
import { JournalWriter, type ChangeOptions } from './journal-writer.js';
import { defaultStatFs, type StatFs } from './free-space.js';

/** The platform calls payments uses (the PlatformClient, or a test double with the same shape). */
export type PaymentsPlatform = Pick<
  PlatformClient,
  | 'process'
  | 'qrTerminalPayment'
  | 'capture'
  | 'captureAll'
  | 'refund'
  | 'cancel'
  | 'allowedOperations'
  | 'status'
  | 'refundByWeb'
>;

export interface PaymentServiceDeps {
  journal: Journal;
  /**
   * The journal's one writer (journal-writer.ts), when the composition root shares it with the
   * offline queue's reports; default one of its own.
   */
  rows?: JournalWriter;
  platform: PaymentsPlatform;
  peripherals: Peripherals;
  bus: EventBus;
  log: Logger;
  config: Config;
  /** The agent's clock (docs/architecture.md, "Time"); default the system clock. */
  clock?: Clock;
  offline?: OfflineHook;
  /** Client transaction ids; default random UUIDs. */
  newId?: () => string;
  /** First delay of the reversal and lookup retries (the cap is payments.reversalRetryCapMs). */
  retryBaseMs?: number;
  /** Jitter source of the retries. */
  random?: () => number;
  /**
   * Throws AUTH_NO_MERCHANT when the merchant a sale names is not one of this terminal's
   * (the agent: the auth service's token for it), so the sale is refused before the reader.
   */
  merchantCheck?: (merchantId: string) => Promise<void>;
  /** Free space of the data directory (payments.minFreeDiskMb); default fs.statfsSync. */
  statfs?: StatFs;
  /**
   * Every name of a merchant (clientId, merchant name, platform merchant id; the default
   * merchant when undefined), for payments.captureMode's map; default: the name as given.
   */
  merchantNames?: (merchantId: string | undefined) => string[];
}

/**
 * The context every payment flow (sale, operation, reversal, lookup) is handed: the
 * journal, the platform, the devices, the bus, the clock, and the bookkeeping of sales
 * waiting to finish and of background resolutions. Not a service of its own: the
 * PaymentService facade builds one and passes it to the flows.
 */
export class PaymentContext {
  /** Reads of the journal; every write goes through `rows` (or `insert` and `save` below). */
  readonly journal: Journal;
  /** The one write path of journal rows (journal-writer.ts). */
  readonly rows: JournalWriter;
  readonly platform: PaymentsPlatform;
  readonly devices: Peripherals;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly config: Config;
  readonly clock: Clock;
  readonly offline: OfflineHook | undefined;
  readonly retryBaseMs: number;
  readonly random: () => number;
  readonly merchantCheck: ((merchantId: string) => Promise<void>) | undefined;
  readonly statfs: StatFs;
  readonly merchantNames: (merchantId: string | undefined) => string[];
  /**
   * Platform answers of operations the journal could not take yet, by the operation's client
   * id: applied once it writes again (outcome-recorder.ts).
   */
  readonly keptOutcomes = new Map<string, () => JournalRow>();
  private readonly makeId: () => string;
  private readonly waiters = new Map<string, Array<(view: TransactionView) => void>>();
  /** Run once when the row is settled, before anyone waiting is told (whenSettled). */
  private readonly settleHooks = new Map<string, (row: JournalRow) => void>();
  private readonly trackingListeners = new Set<(t: PendingTracking) => void>();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly stopper = new AbortController();

  constructor(deps: PaymentServiceDeps) {
    this.journal = deps.journal;
    this.rows = deps.rows ?? new JournalWriter(deps.journal, deps.bus);
    this.rows.afterWrite((row) => this.settleIfFinal(row));
    this.platform = deps.platform;
    this.devices = deps.peripherals;
    this.bus = deps.bus;
    this.log = deps.log.child({ module: 'payments' });
    this.config = deps.config;
    this.clock = deps.clock ?? systemClock();
    this.offline = deps.offline;
    this.retryBaseMs = deps.retryBaseMs ?? 1_000;
    this.random = deps.random ?? Math.random;
    this.makeId = deps.newId ?? randomUUID;
    this.merchantCheck = deps.merchantCheck;
    this.statfs = deps.statfs ?? defaultStatFs;
    this.merchantNames = deps.merchantNames ?? ((merchantId) => (merchantId === undefined ? [] : [merchantId]));
  }

  newId(): string {
    return this.makeId();
  }

  isoNow(): string {
    return new Date(this.clock.wall()).toISOString();
  }

  get channel(): string {
    return this.config.payments.channel;
  }

  /** Aborted when the service stops: background loops end. */
  get stopSignal(): AbortSignal {
    return this.stopper.signal;
  }

  /** The merchant of the row, and the busy retry of writes while someone waits (payments.busyRetryMaxMs). */
  callOptions(row: Pick<JournalRow, 'merchantId'>): CallOptions {
    return {
      ...(row.merchantId !== undefined ? { merchantId: row.merchantId } : {}),
      busyRetryMaxMs: this.config.payments.busyRetryMaxMs,
    };
  }

  /**
   * Rows this process created (sales and operations it started) until start-up recovery
   * has run. Recovery leaves them alone: it is for rows an earlier process left behind,
   * and a live sale taken while recovery still waits for the first token must not be
   * resolved under its feet (docs/payments.md, "Start-up recovery"). Kept only until
   * recovery finishes, so a terminal running for months does not keep every sale's id.
   */
  private startedBeforeRecovery: Set<string> | undefined = new Set<string>();

  /** Inserts (and announces) a row this process starts and, until recovery has run, remembers it as its own. */
  insert(row: Parameters<Journal['insert']>[0]): JournalRow {
    const inserted = this.rows.insert(row);
    this.startedBeforeRecovery?.add(inserted.clientTransactionId);
    return inserted;
  }

  /** Whether this process started the row before recovery finished (see above). */
  startedHere(id: string): boolean {
    return this.startedBeforeRecovery?.has(id) ?? false;
  }

  /** Start-up recovery is done: nothing needs to know any more which rows this process started. */
  recoveryDone(): void {
    this.startedBeforeRecovery = undefined;
  }

  /** Updates the row; once written it is on the bus and anyone waiting is told when it is final (journal-writer.ts). */
  save(id: string, patch: JournalPatch, opts: ChangeOptions = {}): JournalRow {
    return this.rows.update(id, patch, opts);
  }

  /**
   * Resolves with the view once the row is final (or stored offline, or being reversed).
   * `written`: the row as the caller has just written it, nothing having run since (else it is read).
   */
  waitFor(id: string, written?: JournalRow): Promise<TransactionView> {
    const row = written ?? this.journal.require(id);
    if (isSettled(row)) return Promise.resolve(toView(row));
    return new Promise((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push(resolve);
      this.waiters.set(id, list);
    });
  }

  private settleIfFinal(row: JournalRow): void {
    if (!isSettled(row)) return;
    const hook = this.settleHooks.get(row.clientTransactionId);
    if (hook !== undefined) {
      this.settleHooks.delete(row.clientTransactionId);
      // A write of the hook settles the waiters itself (with what it wrote); otherwise they get `row` below.
      hook(row);
    }
    const list = this.waiters.get(row.clientTransactionId);
    if (list === undefined) return;
    this.waiters.delete(row.clientTransactionId);
    const view = toView(row);
    for (const resolve of list) resolve(view);
  }

  /**
   * `hook` runs once when the row becomes settled (final), before a sale's `done` or anyone
   * else waiting is told, so a last word it writes (the QR expiry's outcome message:
   * qr-expiry.ts) is what they read. One hook per row; a later one replaces it.
   */
  whenSettled(id: string, hook: (row: JournalRow) => void): () => void {
    this.settleHooks.set(id, hook);
    // Forgets the hook unless another replaced it (a follow-up that ended another way).
    return () => {
      if (this.settleHooks.get(id) === hook) this.settleHooks.delete(id);
    };
  }

  onTracking(listener: (t: PendingTracking) => void): () => void {
    this.trackingListeners.add(listener);
    return () => this.trackingListeners.delete(listener);
  }

  notifyTracking(row: JournalRow): void {
    const t = trackingOf(row);
    for (const listener of [...this.trackingListeners]) {
      try {
        listener(t);
      } catch (err) {
        this.log.error({ err: describeError(err) }, 'tracking listener failed');
      }
    }
  }

  /**
   * Runs work in the background; failures are logged, never thrown. `watch: true`: a long watch (the late-landing one) that ends with stop() but is not
   * work idle() waits for: idle() means "nothing left to settle", and a watch has nothing
   * to settle unless what it watches for happens (it then starts ordinary background work).
   */
  background(name: string, work: () => Promise<unknown>, opts: { watch?: boolean } = {}): void {
    const task = (async () => {
      try {
        await work();
      } catch (err) {
        if (this.stopper.signal.aborted) return;
        this.log.error({ task: name, err: describeError(err) }, 'background payment task failed');
      }
    })();
    if (opts.watch === true) return;
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /** Resolves when no background task is left (tests, graceful stop). */
  async idle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  stop(): void {
    this.stopper.abort(new Error('payments stopped'));
  }

  /** Device calls that only inform the customer must never fail a payment. */
  async bestEffort(what: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.log.warn({ device: what, err: describeError(err) }, 'device call failed; the payment goes on');
    }
  }
}

/** A sale's `done` resolves in these states: final, stored offline, or handed to the reversal. */
export function isSettled(row: JournalRow): boolean {
  return FINAL_STATES.has(row.state) || row.state === 'offline_stored' || row.state === 'reversing';
}

export function trackingOf(row: JournalRow): PendingTracking {
  return {
    clientTransactionId: row.clientTransactionId,
    // A pending refund or cancel is asked for by the server id its answer gave (docs/payments.md, "Event relay"),
    // and so is a terminal QR call sale, whose client id the payment API is not promised to know (qr-call.ts).
    ...((row.kind !== 'sale' || row.via === 'qrTerminal') && row.serverTransactionId !== undefined
      ? { statusId: row.serverTransactionId }
      : {}),
    ...(row.merchantId !== undefined ? { merchantId: row.merchantId } : {}),
    ...(row.qrExpireTime !== undefined ? { expireTime: row.qrExpireTime } : {}),
    startedAt: row.createdAt,
  };
}
