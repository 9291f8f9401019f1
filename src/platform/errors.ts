import { AgentError, type ErrorCode, ErrorCodes } from '../core/index.js';

/**
 * How a platform call failed:
 * - network: the request never reached the platform (refused, DNS, connect timeout, TLS),
 *   or the connection broke (then `outcomeUnknown` says whether it may have been sent);
 * - timeout: sent, but no (complete) answer in time; the outcome is unknown;
 * - auth: 401/403, or no bearer token could be obtained;
 * - rejected: another 4xx; the platform refused the request and did nothing;
 * - server: 5xx, or a 2xx answer that cannot be read.
 */
export type PlatformErrorCategory = 'network' | 'timeout' | 'auth' | 'rejected' | 'server';

const codeOf: Record<PlatformErrorCategory, ErrorCode> = {
  network: ErrorCodes.PLATFORM_NETWORK,
  timeout: ErrorCodes.PLATFORM_TIMEOUT,
  auth: ErrorCodes.PLATFORM_AUTH,
  rejected: ErrorCodes.PLATFORM_REJECTED,
  server: ErrorCodes.PLATFORM_SERVER,
};

export interface PlatformErrorInit {
  category: PlatformErrorCategory;
  /** Name of the call, e.g. "process" or "token". */
  operation: string;
  method: string;
  /** HTTP status, when an answer arrived. */
  status?: number;
  /** The platform's `errorCode` (or OAuth `error`). */
  errorCode?: string;
  /** The platform's `errorMessage` (or OAuth `error_description`). */
  errorMessage?: string;
  /** True when the request may have reached the platform and taken effect. */
  outcomeUnknown: boolean;
  /** Retry-After of the answer, in milliseconds. */
  retryAfterMs?: number;
  /** Overrides the code derived from the category (e.g. PLATFORM_BAD_RESPONSE). */
  code?: ErrorCode;
  /** Transport error code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ERR_SSL_…). */
  transportCode?: string;
  cause?: unknown;
}

/**
 * The one error of every platform call (auth server included). The payments layer reads
 * `category` and `outcomeUnknown` to decide between "never happened", "look it up" and
 * "refused"; messages carry no tokens, secrets or card data.
 */
export class PlatformError extends AgentError {
  readonly category: PlatformErrorCategory;
  readonly operation: string;
  readonly method: string;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly errorMessage: string | undefined;
  readonly outcomeUnknown: boolean;
  readonly retryAfterMs: number | undefined;
  readonly transportCode: string | undefined;

  constructor(message: string, init: PlatformErrorInit) {
    super(init.code ?? codeOf[init.category], message, {
      cause: init.cause,
      details: compact({
        category: init.category,
        operation: init.operation,
        status: init.status,
        errorCode: init.errorCode,
        outcomeUnknown: init.outcomeUnknown,
        transportCode: init.transportCode,
      }),
    });
    this.name = 'PlatformError';
    this.category = init.category;
    this.operation = init.operation;
    this.method = init.method;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.errorMessage = init.errorMessage;
    this.outcomeUnknown = init.outcomeUnknown;
    this.retryAfterMs = init.retryAfterMs;
    this.transportCode = init.transportCode;
  }

  /** Worth trying again later: the platform was unreachable, slow or failing. */
  get transient(): boolean {
    return (
      this.category === 'network' || this.category === 'timeout' || this.category === 'server' || this.status === 429
    );
  }
}

export function isPlatformError(err: unknown, category?: PlatformErrorCategory): err is PlatformError {
  return err instanceof PlatformError && (category === undefined || err.category === category);
}

/**
 * The platform does not know the transaction id of a read by id (the status call): 404, or
 * 400 / 422 as some platforms answer an unknown id (docs/platform-contract.md, "Decisions
 * where the spec is silent", unknown transaction id). A read carries nothing but the id (no
 * body, no query), so a 400 or 422 can only be about the id. Never for a write: a 400 or 422
 * there refuses its body.
 */
export function isNotFound(err: unknown): boolean {
  return err instanceof PlatformError && (err.status === 404 || err.status === 400 || err.status === 422);
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
