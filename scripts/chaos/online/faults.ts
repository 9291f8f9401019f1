import type { FaultInjector, FaultSpec } from '../../../src/sim/platform/faults.js';

/**
 * Platform troubles the chaos run switches on now and then (the unknown outcomes of
 * docs/architecture.md, "Flows": timeout, reset, 5xx after the request left), through the demo platform's fault injector.
 * Route names are those of src/sim/platform/payments/routes.ts.
 */
export interface FaultScenario {
  name: string;
  faults: Record<string, FaultSpec>;
  /** The platform cannot be reached at all (connections refused): offline sales. */
  unreachable?: boolean;
}

/** The agent's platform timeout (headers and body) and lookup grace in a chaos run (front-door/agent-process.ts). */
export const CLIENT_TIMEOUT_MS = 1_500;
export const LOOKUP_GRACE_MS = 2_000;
/** Later than the agent's timeout: the answer is late, the record happens. */
export const SLOW_MS = CLIENT_TIMEOUT_MS + 500;
/** A write that lands after the client gave up AND after its lookup grace ran out. */
export const LATE_MS = CLIENT_TIMEOUT_MS + LOOKUP_GRACE_MS + 2_000;

export const FAULT_SCENARIOS: readonly FaultScenario[] = [
  { name: 'process answers after the timeout', faults: { process: { latencyMs: SLOW_MS } } },
  { name: 'process recorded, 503 answered', faults: { process: { status: 503, afterRecord: true, everyNth: 2 } } },
  { name: 'process recorded, answer lost', faults: { process: { drop: 'after', everyNth: 3 } } },
  { name: 'process connection dropped before the handler', faults: { process: { drop: 'before', everyNth: 3 } } },
  { name: 'process 502 before the handler', faults: { process: { status: 502, everyNth: 2 } } },
  { name: 'terminal QR call recorded, answer lost', faults: { qrcode: { drop: 'after', everyNth: 2 } } },
  { name: 'refund recorded, answer lost', faults: { refund: { drop: 'after', everyNth: 2 } } },
  { name: 'cancel recorded, 503 answered', faults: { cancel: { status: 503, afterRecord: true, everyNth: 2 } } },
  { name: 'capture recorded, answer lost', faults: { capture: { drop: 'after' } } },
  // The lookup fails too: the engine reverses (cancel Technical, or a refund of a captured sale).
  {
    name: 'process answer lost and lookups failing',
    faults: { process: { drop: 'after', everyNth: 2 }, status: { status: 503, everyNth: 2 } },
  },
  {
    name: 'process answer lost and lookups slow',
    faults: { process: { drop: 'after', everyNth: 2 }, status: { latencyMs: SLOW_MS, everyNth: 2 } },
  },
  {
    name: 'refund answer lost and lookups failing',
    faults: { refund: { drop: 'after' }, status: { status: 503, everyNth: 3 } },
  },
  { name: 'refund by web recorded, answer lost', faults: { refundbyweb: { drop: 'after', everyNth: 2 } } },
  // Lookups see a write only a second after it (the contract promises no read-after-write), inside the agent's grace.
  {
    name: 'process answer lost and lookups lagging writes',
    faults: { process: { drop: 'after', everyNth: 2 }, '*': { lookupLagMs: 1_000 } },
  },
  {
    name: 'refund by web answer lost and lookups lagging writes',
    faults: { refundbyweb: { drop: 'after' }, '*': { lookupLagMs: 1_000 } },
  },
  { name: 'refund by web recorded, 503 answered', faults: { refundbyweb: { status: 503, afterRecord: true } } },
  {
    name: 'process lands after the client gave up and after the lookup grace',
    faults: { process: { recordAfterMs: LATE_MS, times: 1 } },
  },
  { name: 'platform unreachable (offline sales)', faults: {}, unreachable: true },
  { name: 'platform unreachable (offline sales)', faults: {}, unreachable: true },
];

/** Offline chaos: the platform is mostly unreachable, and answers badly when it is there. */
export const OFFLINE_SCENARIOS: readonly FaultScenario[] = [
  { name: 'platform unreachable (offline sales)', faults: {}, unreachable: true },
  { name: 'platform unreachable (offline sales)', faults: {}, unreachable: true },
  { name: 'platform unreachable (offline sales)', faults: {}, unreachable: true },
  { name: 'upload recorded, answer lost', faults: { process: { drop: 'after', everyNth: 2 } } },
  { name: 'upload 503 after record', faults: { process: { status: 503, afterRecord: true, everyNth: 2 } } },
  {
    name: 'upload answer lost and lookups lagging writes',
    faults: { process: { drop: 'after', everyNth: 2 }, '*': { lookupLagMs: 1_000 } },
  },
  { name: 'isAvailable failing', faults: { isAvailable: { status: 503 } } },
];

export interface FaultSwitcher {
  /** Scenario name -> times switched on. */
  used: Map<string, number>;
  stop(): void;
}

/**
 * Switches a random scenario on for a while, then everything off for a while, until
 * stopped. After a scenario with latency the quiet gap is longer than the latency: a
 * request still held by the platform lands before lookups may start failing (a reversal
 * must not overtake a sale that is still on its way: that is the lookup grace's job, not
 * this run's).
 */
export interface Reachability {
  down(): Promise<void>;
  up(): Promise<void>;
}

export function startFaultSwitcher(
  faults: FaultInjector,
  random: () => number,
  reach: Reachability,
  scenarios: readonly FaultScenario[] = FAULT_SCENARIOS,
): FaultSwitcher {
  const used = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const quiet = (after: FaultScenario | undefined): void => {
    faults.clear();
    void reach.up();
    const slow = after !== undefined && Object.values(after.faults).some((f) => f.latencyMs !== undefined);
    const late = after !== undefined && Object.values(after.faults).some((f) => f.recordAfterMs !== undefined);
    timer = setTimeout(on, 200 + Math.floor(random() * 800) + (slow ? SLOW_MS + 500 : 0) + (late ? LATE_MS + 500 : 0));
  };
  const on = (): void => {
    if (stopped) return;
    const scenario = scenarios[Math.floor(random() * scenarios.length)] as FaultScenario;
    used.set(scenario.name, (used.get(scenario.name) ?? 0) + 1);
    for (const [route, spec] of Object.entries(scenario.faults)) faults.set(route, spec);
    if (scenario.unreachable === true) void reach.down();
    timer = setTimeout(
      () => {
        if (!stopped) quiet(scenario);
      },
      300 + Math.floor(random() * 1_200),
    );
  };
  quiet(undefined);
  return {
    used,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      faults.clear();
      void reach.up();
    },
  };
}
