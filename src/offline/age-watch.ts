import type { Logger } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import { ageStage, maxAgeMs, warnAgeMs } from './policy.js';
import type { OfflineQueue } from './queue.js';
import type { OfflineConfig } from './types.js';

export interface AgeWarning {
  clientTransactionId: string;
  stage: 'warn' | 'expired';
  message: string;
}

const hours = (ms: number): string => {
  const h = ms / 3_600_000;
  return Number.isInteger(h) ? `${h} h` : `${h.toFixed(1)} h`;
};

/**
 * Issue 6: "before a limit's age runs out the agent raises a warning". Each stored sale
 * warns once when it enters the last `offline.warnBeforeHours` of `offline.maxAgeHours`,
 * and once more when the age limit has passed (then no new offline sale is taken).
 * What was warned is remembered for this run only: after a restart staff hear it again.
 */
export class AgeWatch {
  private readonly warned = new Map<string, 'warn' | 'expired'>();

  constructor(
    private readonly queue: OfflineQueue,
    private readonly cfg: OfflineConfig,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

  /** Publishes `offline.warning` (and logs) for every stored sale that reached a new stage. */
  check(now: number): AgeWarning[] {
    const out: AgeWarning[] = [];
    // Only items old enough to warn can change stage; a warned item is always among them.
    const stored = this.queue.storedAges({ storedAtOrBefore: now - warnAgeMs(this.cfg) });
    const present = new Set<string>();
    for (const s of stored) {
      present.add(s.clientTransactionId);
      const stage = ageStage(this.cfg, s.storedAtMs, now);
      if (
        stage === 'ok' ||
        this.warned.get(s.clientTransactionId) === stage ||
        (stage === 'warn' && this.warned.get(s.clientTransactionId) === 'expired')
      )
        continue;
      this.warned.set(s.clientTransactionId, stage);
      const left = maxAgeMs(this.cfg) - (now - s.storedAtMs);
      const message =
        stage === 'warn'
          ? `offline sale ${s.clientTransactionId} must be uploaded within ${hours(Math.max(0, left))} (age limit ${this.cfg.maxAgeHours} h): check the platform connection`
          : `offline sale ${s.clientTransactionId} has passed the ${this.cfg.maxAgeHours} h age limit without upload: no more offline sales until it is uploaded`;
      out.push({ clientTransactionId: s.clientTransactionId, stage, message });
      this.log.warn({ clientTransactionId: s.clientTransactionId, stage, ageMs: now - s.storedAtMs }, message);
      this.bus.publish('offline.warning', { message, clientTransactionId: s.clientTransactionId });
    }
    for (const id of [...this.warned.keys()]) if (!present.has(id)) this.warned.delete(id);
    return out;
  }

  /** Milliseconds until the next stored sale reaches a new stage; undefined when none will. */
  nextIn(now: number): number | undefined {
    const threshold = now - warnAgeMs(this.cfg);
    const youngest = this.queue.firstStoredAfter(threshold);
    let next = youngest === undefined ? undefined : youngest + warnAgeMs(this.cfg) - now;
    for (const s of this.queue.storedAges({ storedAtOrBefore: threshold })) {
      const done = this.warned.get(s.clientTransactionId);
      const due =
        done === undefined
          ? s.storedAtMs + warnAgeMs(this.cfg)
          : done === 'warn'
            ? s.storedAtMs + maxAgeMs(this.cfg)
            : undefined;
      if (due === undefined) continue;
      const wait = Math.max(0, due - now);
      next = next === undefined ? wait : Math.min(next, wait);
    }
    return next;
  }
}
