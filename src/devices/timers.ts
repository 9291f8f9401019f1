/**
 * The timers the device layer uses for the link's 100 ms / 500 ms rules, request
 * timeouts and reconnect delays. Injectable so tests drive time by hand.
 */
export type TimerHandle = unknown;

export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Monotonic milliseconds, for round-trip times. */
  now(): number;
}

export function systemTimers(): Timers {
  return {
    setTimeout: (fn, ms) => {
      const t = setTimeout(fn, ms);
      // A pending device timer alone must not keep a CLI process alive.
      t.unref?.();
      return t;
    },
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    now: () => performance.now(),
  };
}
