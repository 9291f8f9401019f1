import type { LogSink } from './log-sink.js';

export interface WaitOptions {
  /** How long to wait before giving up (default 10 s: under a test's 30 s). */
  timeoutMs?: number;
  /** How long to sleep between two reads (default 20 ms). */
  everyMs?: number;
}

/** Thrown when what was awaited did not come: names it, the time given and the last value read. */
export class WaitTimeout extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly last: unknown,
  ) {
    super(`not within ${timeoutMs} ms: ${what} (last seen: ${describe(last)})`);
    this.name = 'WaitTimeout';
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 500 ? `...${value.slice(-500)}` : value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 500 ? `${text.slice(0, 500)}...` : text;
  } catch {
    return String(value);
  }
}

/**
 * Reads `read()` until `done` holds for what it gave, and returns that value; rejects with a
 * `WaitTimeout` naming `what` and the last value read once `timeoutMs` has passed. A read that
 * throws rejects at once. The one polling loop of the test suite.
 */
export async function until<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const everyMs = opts.everyMs ?? 20;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= end) throw new WaitTimeout(what, timeoutMs, value);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `until` for a condition: waits for `check()` to be true. */
export async function untilTrue(
  what: string,
  check: () => boolean | Promise<boolean>,
  opts: WaitOptions = {},
): Promise<void> {
  await until(what, check, (ok) => ok, opts);
}

/** Waits for a line in `sink` that contains `pattern` (a string) or matches it (a RegExp); returns the line. */
export async function untilLogged(sink: LogSink, pattern: string | RegExp, opts: WaitOptions = {}): Promise<string> {
  const matches = (line: string): boolean =>
    typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line);
  const line = await until(
    `a log line ${typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern)}`,
    () => sink.lines.find(matches) ?? sink.lines.at(-1),
    (l) => l !== undefined && matches(l),
    opts,
  );
  return line as string;
}
