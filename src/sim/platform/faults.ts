import { AsyncLocalStorage } from 'node:async_hooks';
import type { TimeSource } from '../../core/index.js';
import { z } from 'zod';

/**
 * Run-time fault injection per route name ("process", "cancel", "mtls-token", … or "*"):
 * added latency, an error status, a connection dropped before the handler runs (nothing
 * recorded) or after it ran (recorded, answer lost), an error status before or after the
 * handler ran, an answer without some of its fields, another status for an unknown id, a
 * status word in place of the record's own, every Nth call only, a limited number of times;
 * reads that lag the platform's writes (`lookupLagMs`). The clock offset shifts the
 * platform's notion of now.
 */
export const faultSpecSchema = z
  .strictObject({
    latencyMs: z.number().int().min(0).optional(),
    /** An error status; a 2xx only with afterRecord and rawBody (the work done, an answer the client cannot read). */
    status: z.number().int().min(200).max(599).optional(),
    errorCode: z.string().optional(),
    errorMessage: z.string().optional(),
    /** Non-JSON error body, to test clients that must cope with one; with afterRecord, the body of the answer after the work. */
    rawBody: z.string().optional(),
    retryAfterSeconds: z.number().int().min(0).optional(),
    drop: z.enum(['before', 'after']).optional(),
    /** With status: answer the error only after the handler ran (recorded, 5xx seen). */
    afterRecord: z.boolean().optional(),
    /**
     * A write that lands late: the body is read, then the handler runs only after this delay
     * (the client has long given up) and the answer is lost. Longer than the client's timeout
     * plus its lookup grace, it is the write a lookup could not see (scripts/chaos/online).
     */
    recordAfterMs: z.number().int().min(1).optional(),
    /**
     * A status word the agent may not know (e.g. `Completed`): the transaction record of a
     * 2xx answer carries it in place of the platform's own status (the platform's state is
     * unchanged; the next answer without the fault shows the real status).
     */
    transactionStatus: z.string().min(1).optional(),
    /**
     * Reads that lag writes (the contract promises no read-after-write): a transaction the
     * platform recorded less than this long ago (on its clock) is unknown to the route's
     * lookups by id (404 from status, allowed operations, cancel, refund, capture, refund by
     * web) and to its check of a repeated client id (process, QR call: the repeat is recorded
     * as a new transaction). On `*` it applies to every route, also one with a fault of its
     * own; `everyNth` and `times` do not limit it (docs/demo-platform.md, "Demo platform").
     */
    lookupLagMs: z.number().int().min(1).optional(),
    /**
     * Top-level fields left out of a 2xx JSON answer, after the work was done: an answer
     * without what the contract does not promise (the terminal QR call's answer is not shown
     * at all: one without `transactionStatus` or `serverTransactionId`).
     */
    omit: z.array(z.string().min(1)).min(1).optional(),
    /** An id the route does not know is answered with this status instead of 404 (a platform that says 400 or 422). */
    unknownIdStatus: z.union([z.literal(400), z.literal(422)]).optional(),
    everyNth: z.number().int().min(1).optional(),
    times: z.number().int().min(1).optional(),
  })
  .refine((f) => f.status === undefined || f.status >= 400 || (f.afterRecord === true && f.rawBody !== undefined), {
    message: 'a 2xx or 3xx status needs afterRecord and rawBody',
    path: ['status'],
  });
export type FaultSpec = z.infer<typeof faultSpecSchema>;

interface ActiveFault {
  spec: FaultSpec;
  calls: number;
  fired: number;
}

export class FaultInjector {
  private readonly faults = new Map<string, ActiveFault>();
  /** The route whose handler is running (for `lookupLagMs`). */
  private readonly serving = new AsyncLocalStorage<string>();
  clockOffsetMs = 0;

  /** `clock`: the real time the platform clock is offset from. */
  constructor(private readonly clock: Pick<TimeSource, 'wall'>) {}

  set(route: string, spec: FaultSpec): void {
    this.faults.set(route, { spec, calls: 0, fired: 0 });
  }

  clear(route?: string): void {
    if (route === undefined) {
      this.faults.clear();
      this.clockOffsetMs = 0;
    } else this.faults.delete(route);
  }

  list(): Record<string, FaultSpec> {
    return Object.fromEntries([...this.faults].map(([k, v]) => [k, v.spec]));
  }

  /** The fault to apply to this call of `route`, if any; counts calls for everyNth/times. */
  take(route: string): FaultSpec | undefined {
    // The control routes are how a fault is switched off again: never faulted, or a `*`
    // fault would lock the demo until restart (docs/demo-platform.md, "Demo platform").
    if (route === 'control') return undefined;
    const active = this.faults.get(route) ?? this.faults.get('*');
    if (active === undefined) return undefined;
    active.calls++;
    if (active.spec.everyNth !== undefined && active.calls % active.spec.everyNth !== 0) return undefined;
    if (active.spec.times !== undefined && active.fired >= active.spec.times) return undefined;
    active.fired++;
    return active.spec;
  }

  /** Runs a route's handler, so that what it looks up knows the route's lookup lag. */
  during<T>(route: string, fn: () => T): T {
    return this.serving.run(route, fn);
  }

  /**
   * How far the reads of the route being served lag the platform's writes: the larger of
   * its own fault's and the `*` fault's `lookupLagMs`, 0 outside a handler and for the
   * control routes. Not counted as a call (everyNth, times).
   */
  lookupLagMs(): number {
    const route = this.serving.getStore();
    if (route === undefined || route === 'control') return 0;
    return Math.max(this.faults.get(route)?.spec.lookupLagMs ?? 0, this.faults.get('*')?.spec.lookupLagMs ?? 0);
  }

  now(): number {
    return this.clock.wall() + this.clockOffsetMs;
  }
}
