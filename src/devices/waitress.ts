import { systemClock, type Clock, type TimerHandle } from '../core/index.js';

export interface Waiter<T> {
  promise: Promise<T>;
  /** Stops waiting; the promise rejects with `err`. */
  cancel: (err: Error) => void;
}

interface Entry<T> {
  predicate: (message: T) => boolean;
  resolve: (message: T) => void;
  reject: (err: Error) => void;
  timer: TimerHandle | undefined;
}

/**
 * Matches incoming messages to requests waiting for them, each with its own timeout (the
 * zigbee-herdsman "waitress"). A message goes to the first waiter whose predicate takes it.
 */
export class Waitress<T> {
  private readonly entries = new Set<Entry<T>>();

  constructor(private readonly clock: Clock = systemClock()) {}

  waitFor(predicate: (message: T) => boolean, timeoutMs: number, onTimeout: () => Error): Waiter<T> {
    let entry!: Entry<T>;
    const promise = new Promise<T>((resolve, reject) => {
      entry = { predicate, resolve, reject, timer: undefined };
    });
    const finish = (): void => {
      this.entries.delete(entry);
      if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
      entry.timer = undefined;
    };
    const { resolve, reject } = entry;
    entry.resolve = (m) => {
      finish();
      resolve(m);
    };
    entry.reject = (e) => {
      finish();
      reject(e);
    };
    entry.timer = this.clock.setTimeout(() => entry.reject(onTimeout()), timeoutMs);
    this.entries.add(entry);
    return {
      promise,
      cancel: (err) => {
        if (this.entries.has(entry)) entry.reject(err);
      },
    };
  }

  /** Hands the message to the first waiter that takes it; false when nobody waited for it. */
  deliver(message: T): boolean {
    for (const entry of this.entries) {
      let match: boolean;
      try {
        match = entry.predicate(message);
      } catch {
        match = false;
      }
      if (match) {
        entry.resolve(message);
        return true;
      }
    }
    return false;
  }

  rejectAll(err: Error): void {
    for (const entry of [...this.entries]) entry.reject(err);
  }

  get size(): number {
    return this.entries.size;
  }
}
