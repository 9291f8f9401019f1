import { pino, type Logger, type DestinationStream, type LevelWithSilent } from 'pino';
import { hostname } from 'node:os';
import { isatty } from 'node:tty';
import { isJournalStream, withSyslogPrefix } from './journald.js';
import { requestLogFields } from './request-context.js';

export type { Logger } from 'pino';

/**
 * Keys whose values must never reach a log line: card data, PIN blocks, client secrets,
 * passwords and tokens (docs/architecture.md, "Invariants" 4), at any depth (see scrubSecrets).
 */
export const SECRET_KEYS = [
  'password',
  'passwd',
  'client_secret',
  'clientSecret',
  'secret',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
  'token',
  'apiToken',
  'authorization',
  'Authorization',
  'cookie',
  'pinblock',
  'pinBlock',
  'encryptedData',
  'pan',
  'cardNumber',
  'track2',
  'cvv',
  'privateKey',
  'keyPem',
] as const;

/** pino `redact` paths: every secret key at the top level of a log line. */
export function redactPaths(keys: readonly string[] = SECRET_KEYS): string[] {
  return keys.map((key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`));
}

export const REDACTED = '[redacted]';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Human-readable output (pino-pretty); default: when stdout is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go; default stdout. Tests pass a sink to read the lines back. */
  destination?: DestinationStream;
  /**
   * Write JSON lines to this file descriptor instead of stdout (tests give a temporary
   * file); the journal check below looks at it. Ignored with `destination`.
   */
  fd?: number;
  /** Where JOURNAL_STREAM is read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  name?: string;
  /** Fields on every line (the agent's version); more join with logger.setBindings (the serial number). */
  bindings?: Record<string, string>;
}

const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);
const SCRUB_DEPTH = 8;

/**
 * Replaces the value of every secret key below the top level (pino `redact` does the top
 * level), in nested objects and arrays up to SCRUB_DEPTH levels. Copy on write: an object
 * without secrets is returned as it is, and the caller's objects are never changed.
 * Measured: pino's wildcard paths for four levels cost about 0.2 ms a line; this walk
 * costs a few microseconds.
 */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (depth > SCRUB_DEPTH || value === null || typeof value !== 'object') return value;
  if (value instanceof Error || value instanceof Date || Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const next = scrubSecrets(item, depth + 1);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return (copy ?? value) as T;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const next = SECRET_KEY_SET.has(key) ? REDACTED : scrubSecrets(item, depth + 1);
    if (next !== item) (copy ??= { ...record })[key] = next;
  }
  return (copy ?? value) as T;
}

/**
 * The agent's logger: JSON lines, secrets redacted, pretty on a terminal. When stdout is
 * the journal (isJournalStream), each line starts with its syslog priority `<N>` so
 * journald files it at that priority; the JSON after it is unchanged (docs/operations.md,
 * "Logs"). The level can be changed while running through logLevelControl(logger).
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const fd = opts.fd ?? 1;
  const journald = opts.destination === undefined && isJournalStream(fd, opts.env);
  const base = {
    name: opts.name ?? 'terminal-agent',
    level: opts.level ?? 'info',
    ...(opts.bindings !== undefined ? { base: { pid: process.pid, hostname: hostname(), ...opts.bindings } } : {}),
    redact: { paths: redactPaths(), censor: REDACTED },
    // The local-API request a line is written under (request-context.ts).
    mixin: requestLogFields,
    formatters: {
      log: (obj: Record<string, unknown>) => scrubSecrets(obj),
      bindings: (bindings: Record<string, unknown>) => scrubSecrets(bindings),
    },
    // An error's own properties are scrubbed too (the walk leaves Error objects whole).
    serializers: { err: (err: Error) => scrubSecrets(pino.stdSerializers.err(err)) },
    ...(journald ? { hooks: { streamWrite: withSyslogPrefix } } : {}),
  };
  if (opts.destination !== undefined) return pino(base, opts.destination);
  if (opts.fd !== undefined) return pino(base, pino.destination({ dest: opts.fd, sync: true }));
  // The journal is never a terminal; pretty output there would lose the JSON fields.
  const pretty = !journald && (opts.pretty ?? process.stdout.isTTY === true);
  if (pretty) {
    return pino(
      base,
      quietWhenTerminalGone(
        pino.transport({ target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } }),
      ),
    );
  }
  // What pino(base) writes to, made here to watch its errors.
  return pino(base, quietWhenTerminalGone(pino.destination({ dest: 1, sync: false })));
}

const noop = (): void => {};

/**
 * Stdout on a terminal that is gone (the ssh session the agent was started from was closed;
 * the agent lives on since it takes SIGHUP as a reload: docs/operations.md, "Reloading the
 * configuration"): writes fail with EIO, and the pretty printer's worker dies of it. The log
 * output is dropped from then on, as pino does itself for EPIPE, instead of the error ending
 * the agent or, at its exit, a flush retrying the write for ever. Any other error is thrown
 * as before.
 */
function quietWhenTerminalGone<T extends DestinationStream & NodeJS.EventEmitter>(stream: T): T {
  const wasTerminal = isatty(1);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    // pino's own listener, called first, has muted the stream (a pipe's reader went away).
    if (err.code === 'EPIPE') return;
    if (!wasTerminal || isatty(1)) throw err;
    Object.assign(stream, { write: () => true, flush: noop, flushSync: noop, end: noop, destroy: noop });
  });
  return stream;
}

/** A logger that drops everything, for components built without one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
