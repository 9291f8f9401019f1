import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ErrorCodes,
  parseRetryAfter,
  systemClock,
  undiciRequest,
  type ErrorCode,
  type TimeSource,
} from '../core/index.js';
import { PlatformError, type PlatformErrorCategory } from './errors.js';

export type HttpMethod = 'GET' | 'POST';

export interface HttpRequest {
  /** Name of the call for errors and logs, e.g. "process", "token". */
  operation: string;
  method: HttpMethod;
  url: string;
  dispatcher: Dispatcher;
  headers?: Record<string, string>;
  body?: string;
  /** Per-request overrides of the dispatcher's timeouts. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The platform's clock from the Date header (ms since the epoch), when sent and valid. */
  dateMs: number | undefined;
  /** Local wall clock when the answer arrived. */
  receivedAtMs: number;
  /** Local monotonic clock when the answer arrived. */
  receivedMono: number;
  durationMs: number;
}

/** Connection never established: nothing was sent. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
]);

/** Our trust in the platform's certificate failed: nothing was sent. */
const SERVER_CERT =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID|CERT_SIGNATURE_FAILURE)$/;

/** A TLS alert from the platform: it refused our certificate (unknown CA, expired, missing). */
const TLS_ALERT = /^ERR_SSL_.*ALERT/;

function errorCodeOf(err: unknown): string | undefined {
  let e: unknown = err;
  // undici wraps some socket errors; the first code found along the cause chain wins.
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = (e as Error & { cause?: unknown }).cause;
  }
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return err.name;
  return undefined;
}

/**
 * Classifies a transport failure. `outcomeUnknown` is true whenever the request may have
 * left: a read timeout, or a connection reset after connecting (docs/platform-contract.md,
 * "Hosts and TLS", and docs/payments.md, "Unknown outcome: resolution and reversal").
 */
export function transportError(req: Pick<HttpRequest, 'operation' | 'method' | 'url'>, err: unknown): PlatformError {
  const code = errorCodeOf(err);
  const host = safeHost(req.url);
  let category: PlatformErrorCategory;
  let outcomeUnknown: boolean;
  let message: string;
  let override: ErrorCode | undefined;
  if (code !== undefined && NEVER_SENT.has(code)) {
    category = 'network';
    outcomeUnknown = false;
    message =
      code === 'UND_ERR_CONNECT_TIMEOUT' ? `could not connect to ${host} in time` : `could not reach ${host} (${code})`;
  } else if (code !== undefined && TLS_ALERT.test(code)) {
    category = 'auth';
    outcomeUnknown = false;
    override = ErrorCodes.AUTH_CERT_REFUSED;
    message = `${host} refused the device certificate during the TLS handshake (${code})`;
  } else if (code !== undefined && SERVER_CERT.test(code)) {
    category = 'network';
    outcomeUnknown = false;
    message = `the certificate of ${host} is not trusted (${code}): check identity.caFile`;
  } else if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'TimeoutError') {
    category = 'timeout';
    outcomeUnknown = true;
    message = `${host} did not answer ${req.operation} in time`;
  } else {
    category = 'network';
    outcomeUnknown = true;
    message = `connection to ${host} failed during ${req.operation}${code ? ` (${code})` : ''}`;
  }
  return new PlatformError(message, {
    category,
    operation: req.operation,
    method: req.method,
    outcomeUnknown,
    ...(code !== undefined ? { transportCode: code } : {}),
    ...(override !== undefined ? { code: override } : {}),
    cause: err,
  });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the platform';
  }
}

/** One HTTP exchange with undici's own `request`; the body is always read to free the connection. */
export async function httpRequest(req: HttpRequest, clock: TimeSource = systemClock()): Promise<HttpResponse> {
  const started = clock.mono();
  try {
    const res = await undiciRequest(req.url, {
      dispatcher: req.dispatcher,
      method: req.method,
      headers: req.headers ?? {},
      body: req.body ?? null,
      ...(req.headersTimeoutMs !== undefined ? { headersTimeout: req.headersTimeoutMs } : {}),
      ...(req.bodyTimeoutMs !== undefined ? { bodyTimeout: req.bodyTimeoutMs } : {}),
      ...(req.signal !== undefined ? { signal: req.signal } : {}),
    });
    const text = await res.body.text();
    const receivedMono = clock.mono();
    const dateHeader = res.headers.date;
    const dateMs = typeof dateHeader === 'string' ? Date.parse(dateHeader) : Number.NaN;
    return {
      status: res.statusCode,
      headers: res.headers,
      text,
      dateMs: Number.isNaN(dateMs) ? undefined : dateMs,
      receivedAtMs: clock.wall(),
      receivedMono,
      durationMs: receivedMono - started,
    };
  } catch (err) {
    throw transportError(req, err);
  }
}

export interface ErrorBody {
  errorCode?: string;
  errorMessage?: string;
}

const MAX_MESSAGE = 300;

/**
 * Reads `{errorCode, errorMessage}` (docs/platform-contract.md, "Tolerance of answers") or an OAuth
 * `{error, error_description}`; an empty or non-JSON body gives neither.
 */
export function parseErrorBody(text: string): ErrorBody {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const o = parsed as Record<string, unknown>;
  const code = typeof o.errorCode === 'string' ? o.errorCode : typeof o.error === 'string' ? o.error : undefined;
  const message =
    typeof o.errorMessage === 'string'
      ? o.errorMessage
      : typeof o.error_description === 'string'
        ? o.error_description
        : undefined;
  return {
    ...(code !== undefined ? { errorCode: code.slice(0, 100) } : {}),
    ...(message !== undefined ? { errorMessage: message.slice(0, MAX_MESSAGE) } : {}),
  };
}

/**
 * The error for a non-2xx answer. A 5xx on a write may have taken effect (the platform
 * may have recorded it before failing); a 4xx means it did nothing.
 */
export function statusError(
  req: Pick<HttpRequest, 'operation' | 'method'>,
  res: HttpResponse,
  clock: TimeSource = systemClock(),
): PlatformError {
  const body = parseErrorBody(res.text);
  const status = res.status;
  const category: PlatformErrorCategory =
    status === 401 || status === 403 ? 'auth' : status >= 500 ? 'server' : 'rejected';
  const retryAfterMs = parseRetryAfter(res.headers['retry-after'], clock.wall());
  const what =
    body.errorCode !== undefined
      ? `${body.errorCode}${body.errorMessage ? `: ${body.errorMessage}` : ''}`
      : `HTTP ${status}`;
  return new PlatformError(`platform refused ${req.operation} (${status}): ${what}`, {
    category,
    operation: req.operation,
    method: req.method,
    status,
    ...body,
    outcomeUnknown: category === 'server' && req.method !== 'GET',
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** The JSON of a 2xx answer; an unreadable one is a server fault whose effect is unknown for writes. */
export function jsonBody(req: Pick<HttpRequest, 'operation' | 'method'>, res: HttpResponse): unknown {
  if (res.text.trim() === '') return undefined;
  try {
    return JSON.parse(res.text);
  } catch (err) {
    throw new PlatformError(`platform answered ${req.operation} with a body that is not JSON`, {
      category: 'server',
      code: ErrorCodes.PLATFORM_BAD_RESPONSE,
      operation: req.operation,
      method: req.method,
      status: res.status,
      outcomeUnknown: req.method !== 'GET',
      cause: err,
    });
  }
}
