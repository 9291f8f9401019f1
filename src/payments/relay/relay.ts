import {
  describeError,
  isAgentError,
  ErrorCodes,
  systemClock,
  type Logger,
  type Clock,
  type TimerHandle,
} from '../../core/index.js';
import { defaultRelayPolicy, nextPollDelay, parseExpireTime, type RelayPolicy } from './relay-policy.js';
import type { PendingTracking, RelayedTransaction, RelayStore } from './relay-store.js';

export interface EventRelayOptions {
  store: RelayStore;
  /** The platform's status call (GET /payment/v1/transactions/{id}, the client or the server id): the transaction record. */
  fetchStatus: (transactionId: string, merchantId?: string) => Promise<Record<string, unknown>>;
  log: Logger;
  /**
   * The agent's one Clock (docs/architecture.md, "Time"): wall time, because the QR expiry
   * it compares with is the platform's wall-clock expireTime, and the poll timers.
   */
  clock?: Pick<Clock, 'wall' | 'setTimeout' | 'clearTimeout'>;
  policy?: Partial<RelayPolicy>;
  /** Jitter source of the failure backoff. */
  random?: () => number;
  /**
   * The platform's time zone (config `platform.timeZone`, IANA name, named for each
   * environment: no default): a QR expireTime without an offset is read in it
   * (docs/platform-contract.md, "Tolerance of answers", dates and time zone).
   */
  timeZone: string;
  /**
   * The platform's clock now when it is known (auth's clock-skew measurement: the token
   * answers' Date header and iat), else undefined. A QR's expireTime is the platform's, so
   * its expiry is judged on the platform's clock: a terminal clock running ahead would end a
   * QR the customer can still pay (docs/payments.md, "Event relay"). Without it, or
   * before a measurement, the terminal's wall clock is used.
   */
  platformNow?: () => number | undefined;
}

export interface EventRelay {
  /** Resumes every transaction still pending and follows new ones as the engine reports them. */
  start(): void;
  /** Stops every timer; a status call in flight finishes and is ignored. */
  stop(): void;
  /** Client ids currently followed. */
  tracked(): string[];
}

interface Entry {
  tracking: PendingTracking;
  trackedSince: number;
  expiresAt: number | undefined;
  slowPolls: number;
  failures: number;
  timer: TimerHandle | undefined;
  /** state/platformStatus last seen, to publish changes that came without a platform event. */
  lastKey: string | undefined;
  /** The store was told the QR expired (once per run; the store keeps it across restarts). */
  expiryReported: boolean;
}

/**
 * The provider event relay (docs/payments.md, "Event relay"): follows each pending
 * transaction (a wallet payment, a refund or cancel answered pending) through the status
 * call, fast while the customer is paying and backing off after, until the platform reports
 * the status final. The QR's expiry (the platform's expireTime) is not an outcome: an answer
 * asked at or after it that is still pending makes the store ask the platform to cancel the
 * payment, and the following goes on, fast again, until the platform's final word. The store
 * persists which platform events were delivered, so each reaches the bus once, across
 * restarts too. A failing status call is retried with backoff; nothing here throws.
 */
export function createEventRelay(opts: EventRelayOptions): EventRelay {
  const log = opts.log.child({ module: 'event-relay' });
  const clock = opts.clock ?? systemClock();
  const now = (): number => clock.wall();
  /** Time to compare with a QR's expiry: the platform's clock when known. */
  const platformNow = (): number => opts.platformNow?.() ?? clock.wall();
  const policy: RelayPolicy = { ...defaultRelayPolicy, ...opts.policy };
  const entries = new Map<string, Entry>();
  let running = false;
  let unsubscribe: (() => void) | undefined;

  /** The row on the bus, through the store's one write path (its journal writer publishes it). */
  function publish(view: RelayedTransaction, platformEvent?: Record<string, unknown>): void {
    opts.store.announce(view.clientTransactionId, platformEvent);
  }

  function untrack(id: string, entry: Entry): void {
    if (entries.get(id) !== entry) return;
    if (entry.timer !== undefined) clock.clearTimeout(entry.timer);
    entries.delete(id);
  }

  function schedule(id: string, entry: Entry, delayMs: number): void {
    if (!running || entries.get(id) !== entry) return;
    if (entry.timer !== undefined) clock.clearTimeout(entry.timer);
    entry.timer = clock.setTimeout(() => {
      entry.timer = undefined;
      void poll(id, entry);
    }, delayMs);
  }

  function scheduleNext(id: string, entry: Entry, lastCallMs: number): void {
    const at = now();
    const delay = nextPollDelay(
      policy,
      {
        trackedForMs: at - entry.trackedSince,
        slowPolls: entry.slowPolls,
        failures: entry.failures,
        msToExpiry: entry.expiresAt === undefined ? undefined : entry.expiresAt - platformNow(),
        lastCallMs,
      },
      opts.random,
    );
    schedule(id, entry, delay);
  }

  async function poll(id: string, entry: Entry): Promise<void> {
    const started = now();
    // The platform's time when the status call left: its answer was written no earlier.
    const askedAt = platformNow();
    let record: Record<string, unknown>;
    try {
      record = await opts.fetchStatus(entry.tracking.statusId ?? id, entry.tracking.merchantId);
    } catch (err) {
      if (!running || entries.get(id) !== entry) return;
      entry.failures++;
      log.warn(
        {
          clientTransactionId: id,
          attempt: entry.failures,
          code: isAgentError(err) ? err.code : undefined,
          err: describeError(err),
        },
        'status call failed; retrying with backoff',
      );
      scheduleNext(id, entry, now() - started);
      return;
    }
    if (!running || entries.get(id) !== entry) return;
    try {
      const applied = opts.store.applyStatusRecord(id, record);
      entry.failures = 0;
      for (const event of applied.newEvents) publish(applied.view, event);
      const key = `${applied.view.state}/${applied.view.platformStatus ?? ''}`;
      const changed = entry.lastKey !== undefined && entry.lastKey !== key;
      if (applied.newEvents.length === 0 && (changed || applied.final)) publish(applied.view);
      entry.lastKey = key;
      if (applied.final) {
        log.info(
          { clientTransactionId: id, state: applied.view.state, platformStatus: applied.view.platformStatus },
          'transaction final',
        );
        untrack(id, entry);
        return;
      }
      // Expired: the answer we just got, asked at or after expireTime on the platform's clock, is
      // still not final. Not an outcome (the customer may have paid in the last second): the
      // store asks the platform to cancel, and the sale is followed until the platform's word,
      // fast again while the clerk waits for it.
      if (entry.expiresAt !== undefined && askedAt >= entry.expiresAt && !entry.expiryReported) {
        const view = opts.store.qrExpired(id);
        entry.expiryReported = true;
        entry.lastKey = `${view.state}/${view.platformStatus ?? ''}`;
        publish(view);
        log.info(
          { clientTransactionId: id },
          'QR expired without a final status: the platform is asked to cancel; following until final',
        );
        entry.trackedSince = now();
        entry.slowPolls = 0;
      }
      if (now() - entry.trackedSince >= policy.fastPhaseMs) entry.slowPolls++;
      scheduleNext(id, entry, now() - started);
    } catch (err) {
      if (isAgentError(err, ErrorCodes.PAYMENT_NOT_FOUND)) {
        log.warn({ clientTransactionId: id }, 'tracked transaction is not in the journal; no longer followed');
        untrack(id, entry);
        return;
      }
      entry.failures++;
      log.error(
        { clientTransactionId: id, attempt: entry.failures, err: describeError(err) },
        'applying the status record failed; retrying',
      );
      scheduleNext(id, entry, now() - started);
    }
  }

  function track(tracking: PendingTracking, firstDelayMs: number): void {
    if (!running) return;
    const id = tracking.clientTransactionId;
    const expiresAt = parseExpireTime(tracking.expireTime, opts.timeZone);
    if (tracking.expireTime !== undefined && expiresAt === undefined) {
      log.warn(
        { clientTransactionId: id, expireTime: tracking.expireTime },
        'unreadable expireTime; following until final',
      );
    }
    const existing = entries.get(id);
    if (existing) {
      // Same transaction reported again (e.g. the QR came with its expiry): keep one schedule.
      existing.tracking = tracking;
      existing.expiresAt = expiresAt;
      return;
    }
    const entry: Entry = {
      tracking,
      trackedSince: now(),
      expiresAt,
      slowPolls: 0,
      failures: 0,
      timer: undefined,
      lastKey: undefined,
      expiryReported: false,
    };
    entries.set(id, entry);
    schedule(id, entry, firstDelayMs);
  }

  return {
    start() {
      if (running) return;
      running = true;
      unsubscribe = opts.store.onTracking((t) => {
        try {
          track(t, policy.fastIntervalMs);
        } catch (err) {
          log.error({ err: describeError(err) }, 'cannot follow transaction');
        }
      });
      let pending: PendingTracking[] = [];
      try {
        pending = opts.store.pendingTracking();
      } catch (err) {
        log.error({ err: describeError(err) }, 'cannot read pending transactions');
      }
      // After a restart the state may have changed long ago: look now.
      for (const t of pending) track(t, 0);
      if (pending.length > 0) log.info({ count: pending.length }, 'resumed following pending transactions');
    },
    stop() {
      running = false;
      unsubscribe?.();
      unsubscribe = undefined;
      for (const entry of entries.values()) if (entry.timer !== undefined) clock.clearTimeout(entry.timer);
      entries.clear();
    },
    tracked() {
      return [...entries.keys()];
    },
  };
}
