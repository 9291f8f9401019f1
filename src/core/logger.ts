import { pino, type Logger, type DestinationStream, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/**
 * Keys whose values must never reach a log line: card data, PIN blocks, client secrets,
 * passwords and tokens (DESIGN.md invariant 4). pino's redact paths match fixed depths,
 * so each key is listed at the top level and under up to four levels of wildcards.
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

const WILDCARD_DEPTH = 4;

export function redactPaths(keys: readonly string[] = SECRET_KEYS): string[] {
  const paths: string[] = [];
  for (const key of keys) {
    const leaf = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    let prefix = '';
    for (let depth = 0; depth <= WILDCARD_DEPTH; depth++) {
      paths.push(prefix === '' ? leaf : `${prefix}.${leaf}`);
      prefix = prefix === '' ? '*' : `${prefix}.*`;
    }
  }
  return paths;
}

export const REDACTED = '[redacted]';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Human-readable output (pino-pretty); default: when stdout is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go; default stdout. Tests pass a sink to read the lines back. */
  destination?: DestinationStream;
  name?: string;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const base = {
    name: opts.name ?? 'terminal-agent',
    level: opts.level ?? 'info',
    redact: { paths: redactPaths(), censor: REDACTED },
    serializers: { err: pino.stdSerializers.err },
  };
  if (opts.destination !== undefined) return pino(base, opts.destination);
  const pretty = opts.pretty ?? process.stdout.isTTY === true;
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(base);
}

/** A logger that drops everything, for components built without one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
