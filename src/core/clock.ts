/**
 * The one clock and timer source of the agent (docs/architecture.md, "Time"). Every
 * component that reads the time, waits or schedules takes a `Clock` from the
 * composition root, so tests drive time by hand and no module reads the system clock
 * on its own.
 */
/** Opaque: the real clock gives a Node timer, test clocks their own tokens. */
export type TimerHandle = NonNullable<unknown>;

export interface Clock {
  /** Wall-clock milliseconds since the epoch (dates sent to the platform, journal times). */
  wall(): number;
  /** Monotonic milliseconds, for durations and deadlines (never jumps with NTP). */
  mono(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Only what reads the time, for components that never wait. */
export type TimeSource = Pick<Clock, 'wall' | 'mono'>;

/** Only what schedules, for components that keep their own timers. */
export type TimerSource = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The real clock. Its timers are unref'd: a pending retry or device timeout alone must
 * not keep a CLI process alive; the agent's own listeners keep it running.
 */
export function systemClock(): Clock {
  return {
    wall: () => Date.now(),
    mono: () => performance.now(),
    setTimeout: (fn, ms) => {
      const t = setTimeout(fn, ms);
      t.unref?.();
      return t;
    },
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    sleep,
  };
}
