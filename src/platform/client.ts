import type { z } from 'zod';
import {
  backoffDelay,
  describeError,
  systemClock,
  ErrorCodes,
  AgentError,
  isAgentError,
  type Logger,
  type BackoffOptions,
  type Clock,
  type TimerHandle,
} from '../core/index.js';
import { PlatformError, isPlatformError } from './errors.js';
import { httpRequest, jsonBody, statusError, type HttpMethod, type HttpResponse } from './http.js';
import { dispatcherFor, type DispatcherSource } from './dispatchers.js';
import { checkRequest, readResponse } from './validate.js';
import type { ReachObserver } from './availability-watch.js';
import {
  cancelRequest,
  captureAllRequest,
  captureRequest,
  processRequest,
  qrTerminalPaymentRequest,
  refundByWebRequest,
  refundRequest,
  type CancelRequest,
  type CaptureAllRequest,
  type CaptureRequest,
  type ProcessRequest,
  type QrTerminalPaymentRequest,
  type RefundByWebRequest,
  type RefundRequest,
} from './schemas/requests.js';
import {
  allowedOperations,
  captureAllResponse,
  countries,
  qrTerminalPaymentResponse,
  transactionRecord,
  writeRecord,
  type AllowedOperations,
  type CaptureAllResponse,
  type Country,
  type QrTerminalPaymentResponse,
  type TransactionRecord,
  type WriteRecord,
} from './schemas/responses.js';

/**
 * Where every call gets its bearer token. `merchantId` selects the merchant when the
 * terminal serves several (undefined = the default one); `invalidate` is called with a
 * token the platform answered 401 to, so the next `tokenFor` brings a fresh one.
 */
export interface BearerProvider {
  tokenFor(merchantId?: string): Promise<string>;
  invalidate(merchantId: string | undefined, token: string): void;
}

export interface CallOptions {
  /** The merchant the call acts for; default the terminal's default merchant. */
  merchantId?: string;
  signal?: AbortSignal;
  /**
   * A write answered 429 or 503 with Retry-After (busy, before processing) is sent again,
   * unchanged (the same client id), after the wait the platform asked for, while the
   * waits add up to at most this many milliseconds (docs/platform-contract.md, "Decisions
   * where the spec is silent", busy platform). Default 0: not retried.
   */
  busyRetryMaxMs?: number;
}

export interface GetRetryOptions {
  /** Extra attempts of a GET after a network error, timeout, 5xx or 429. */
  retries: number;
  backoff: BackoffOptions;
  /** A Retry-After longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs: number;
}

export interface PlatformClientOptions {
  /** Main API host, e.g. https://api.demo.example (no trailing slash needed). */
  baseUrl: string;
  dispatchers: DispatcherSource;
  tokens: BearerProvider;
  log: Logger;
  /** Per-request overrides of the dispatcher's headers/body timeouts. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** isAvailable answers within this budget (default 2 s) or counts as unavailable (docs/platform-contract.md, "Endpoints"). */
  availabilityTimeoutMs?: number;
  getRetry?: Partial<GetRetryOptions>;
  /** Time and timers (docs/architecture.md, "Time"); the composition root passes the agent's one Clock. */
  clock?: Clock;
  /** Told of every answer and every transport failure (the PlatformWatch: docs/counter-page.md, "Local API and counter page"). */
  reach?: ReachObserver;
}

const defaultGetRetry: GetRetryOptions = { retries: 2, backoff: { baseMs: 250, capMs: 2_000 }, maxRetryAfterMs: 5_000 };

interface Call<S extends z.ZodType> {
  operation: string;
  method: HttpMethod;
  path: string;
  body?: unknown;
  schema: S;
  auth: boolean;
  opts: CallOptions | undefined;
}

/**
 * Typed client of the payment API (docs/platform-contract.md, "Endpoints"). Writes are sent
 * exactly once (plus one retry after a 401, which the platform refused before acting, and,
 * when the caller allows it with `busyRetryMaxMs`, after a 429/503 busy answer with
 * Retry-After); retrying a write otherwise is the payments layer's decision, which owns
 * idempotency. GETs are retried here with full-jitter backoff.
 */
export class PlatformClient {
  private readonly baseUrl: string;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly getRetry: GetRetryOptions;

  constructor(private readonly opts: PlatformClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.log = opts.log.child({ module: 'platform' });
    this.clock = opts.clock ?? systemClock();
    this.getRetry = { ...defaultGetRetry, ...opts.getRetry };
  }

  /** Sale: card, wallet QR, MOTO, manual entry, offline upload. */
  async process(body: ProcessRequest, opts?: CallOptions): Promise<WriteRecord> {
    const checked = checkRequest(processRequest, body, 'process');
    return this.call({
      operation: 'process',
      method: 'POST',
      path: '/payment/v1/transactions/process',
      body: checked,
      schema: writeRecord,
      auth: true,
      opts,
    });
  }

  async capture(transactionId: string, body: CaptureRequest, opts?: CallOptions): Promise<WriteRecord> {
    const checked = checkRequest(captureRequest, body, 'capture');
    return this.call({
      operation: 'capture',
      method: 'POST',
      path: `${txPath(transactionId)}/capture`,
      body: checked,
      schema: writeRecord,
      auth: true,
      opts,
    });
  }

  async captureAll(body: CaptureAllRequest, opts?: CallOptions): Promise<CaptureAllResponse> {
    const checked = checkRequest(captureAllRequest, body, 'captureAll');
    return this.call({
      operation: 'captureAll',
      method: 'POST',
      path: '/payment/v1/transactions/captureall',
      body: checked,
      schema: captureAllResponse,
      auth: true,
      opts,
    });
  }

  async refund(transactionId: string, body: RefundRequest, opts?: CallOptions): Promise<WriteRecord> {
    const checked = checkRequest(refundRequest, body, 'refund');
    return this.call({
      operation: 'refund',
      method: 'POST',
      path: `${txPath(transactionId)}/refund`,
      body: checked,
      schema: writeRecord,
      auth: true,
      opts,
    });
  }

  async cancel(transactionId: string, body: CancelRequest, opts?: CallOptions): Promise<WriteRecord> {
    const checked = checkRequest(cancelRequest, body, 'cancel');
    return this.call({
      operation: 'cancel',
      method: 'POST',
      path: `${txPath(transactionId)}/cancel`,
      body: checked,
      schema: writeRecord,
      auth: true,
      opts,
    });
  }

  /** Operations allowed now and their maximum amount: one `{allowed, maxAmount, currency}`; the path takes no query (docs/platform-contract.md, "Endpoints"). */
  async allowedOperations(transactionId: string, opts?: CallOptions): Promise<AllowedOperations> {
    return this.call({
      operation: 'allowedOperations',
      method: 'GET',
      path: `${txPath(transactionId)}/allowedoperations`,
      schema: allowedOperations,
      auth: true,
      opts,
    });
  }

  async refundByWeb(transactionId: string, body: RefundByWebRequest, opts?: CallOptions): Promise<WriteRecord> {
    const checked = checkRequest(refundByWebRequest, body, 'refundByWeb');
    return this.call({
      operation: 'refundByWeb',
      method: 'POST',
      path: `${txPath(transactionId)}/refundbyweb`,
      body: checked,
      schema: writeRecord,
      auth: true,
      opts,
    });
  }

  /** Status and event history; `transactionId` is the client or the server id. A 404 is a `rejected` error (see isNotFound). */
  async status(transactionId: string, opts?: CallOptions): Promise<TransactionRecord> {
    return this.call({
      operation: 'status',
      method: 'GET',
      path: txPath(transactionId),
      schema: transactionRecord,
      auth: true,
      opts,
    });
  }

  /** Terminal-initiated QR payment (POST /qrcode-payment/v1/transactions; answer not specified: docs/platform-contract.md, "Endpoints"). */
  async qrTerminalPayment(body: QrTerminalPaymentRequest, opts?: CallOptions): Promise<QrTerminalPaymentResponse> {
    const checked = checkRequest(qrTerminalPaymentRequest, body, 'qrTerminalPayment');
    return this.call({
      operation: 'qrTerminalPayment',
      method: 'POST',
      path: '/qrcode-payment/v1/transactions',
      body: checked,
      schema: qrTerminalPaymentResponse,
      auth: true,
      opts,
    });
  }

  /** Reference data: countries. */
  async countries(opts?: CallOptions): Promise<Country[]> {
    return this.call({
      operation: 'countries',
      method: 'GET',
      path: '/resources/v1/countries',
      schema: countries,
      auth: true,
      opts,
    });
  }

  /**
   * 200 means available; anything else, or no answer within the budget (token included),
   * means not (docs/platform-contract.md, "Endpoints"). Never throws.
   */
  async isAvailable(opts?: CallOptions): Promise<boolean> {
    const budgetMs = this.opts.availabilityTimeoutMs ?? 2_000;
    // The budget runs on the Clock: when it is over the answer is "not available" and the request is abandoned.
    const budget = new AbortController();
    const signal = opts?.signal ? AbortSignal.any([opts.signal, budget.signal]) : budget.signal;
    let timer: TimerHandle | undefined;
    // What the race gives: true (200), or why not in a clerk's words.
    const deadline = new Promise<string>((resolve) => {
      timer = this.clock.setTimeout(() => {
        budget.abort(new DOMException(`no answer within ${budgetMs} ms`, 'TimeoutError'));
        resolve('the platform did not answer in time');
      }, budgetMs);
    });
    const attempt = (async (): Promise<true | string> => {
      try {
        const { res } = await this.exchange({
          operation: 'isAvailable',
          method: 'GET',
          path: '/payment/v1/transactions/technical/isAvailable',
          auth: true,
          opts: { ...opts, signal },
          headersTimeoutMs: budgetMs,
          bodyTimeoutMs: budgetMs,
          observe: false,
        });
        return res.status === 200 ? true : `the platform says it is not available (${res.status})`;
      } catch (err) {
        this.log.debug({ code: isAgentError(err) ? err.code : undefined }, 'platform not available');
        return reachReason(err);
      }
    })();
    let answer: true | string;
    try {
      answer = await Promise.race([attempt, deadline]);
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
    // A check the caller abandoned (stopping) says nothing about the platform.
    if (opts?.signal?.aborted !== true) {
      if (answer === true) this.opts.reach?.answered();
      else this.opts.reach?.unreachable(answer);
    }
    return answer === true;
  }

  private async call<S extends z.ZodType>(c: Call<S>): Promise<z.output<S>> {
    const retries = c.method === 'GET' ? this.getRetry.retries : 0;
    let busyWaitedMs = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const { res } = await this.exchange(c);
        if (res.status < 200 || res.status > 299) throw statusError(c, res, this.clock);
        return readResponse(c.schema, jsonBody(c, res), c, res.status);
      } catch (err) {
        const busy = c.method === 'POST' ? this.busyDelay(err, busyWaitedMs, c.opts?.busyRetryMaxMs ?? 0) : undefined;
        if (busy !== undefined) {
          busyWaitedMs += busy;
          this.log.info(
            { operation: c.operation, status: isPlatformError(err) ? err.status : undefined, waitMs: busy },
            'platform busy before processing; sending the same request again',
          );
          await this.clock.sleep(busy, c.opts?.signal);
          continue;
        }
        const wait = attempt < retries ? this.retryDelay(err, attempt) : undefined;
        if (wait === undefined) throw err;
        this.log.debug({ operation: c.operation, attempt: attempt + 1, waitMs: wait }, 'retrying platform read');
        await this.clock.sleep(wait, c.opts?.signal);
      }
    }
  }

  /**
   * A write answered 429, or 503 with Retry-After, was refused before processing: the
   * wait before sending it again, when it fits within the bound. A 503 whose waits run out
   * is left as it is (its outcome unknown, looked up by the payments layer).
   */
  private busyDelay(err: unknown, waitedMs: number, maxMs: number): number | undefined {
    if (maxMs <= 0 || !isPlatformError(err) || err.retryAfterMs === undefined) return undefined;
    if (err.status !== 429 && err.status !== 503) return undefined;
    const wait = Math.max(err.retryAfterMs, 50);
    return waitedMs + wait <= maxMs ? wait : undefined;
  }

  /** Only GETs come here; writes are never retried by the client. */
  private retryDelay(err: unknown, attempt: number): number | undefined {
    if (!isPlatformError(err) || !err.transient) return undefined;
    if (err.retryAfterMs !== undefined && err.retryAfterMs > this.getRetry.maxRetryAfterMs) return undefined;
    return backoffDelay(attempt, this.getRetry.backoff, err.retryAfterMs);
  }

  /** One request with its bearer; after a 401 the token is invalidated and the request sent once more. */
  private async exchange(
    c: Omit<Call<z.ZodType>, 'schema'> & { headersTimeoutMs?: number; bodyTimeoutMs?: number; observe?: boolean },
  ): Promise<{ res: HttpResponse }> {
    const url = `${this.baseUrl}${c.path}`;
    const merchantId = c.opts?.merchantId;
    for (let round = 0; ; round++) {
      const headers: Record<string, string> = { accept: 'application/json' };
      let token: string | undefined;
      if (c.auth) {
        token = await this.bearer(c.operation, c.method, merchantId);
        headers.authorization = `Bearer ${token}`;
      }
      const body = c.body === undefined ? undefined : JSON.stringify(c.body);
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await this.observed(c, () =>
        httpRequest(
          {
            operation: c.operation,
            method: c.method,
            url,
            dispatcher: dispatcherFor(this.opts.dispatchers, url),
            headers,
            ...(body !== undefined ? { body } : {}),
            ...optional('headersTimeoutMs', c.headersTimeoutMs ?? this.opts.headersTimeoutMs),
            ...optional('bodyTimeoutMs', c.bodyTimeoutMs ?? this.opts.bodyTimeoutMs),
            ...optional('signal', c.opts?.signal),
          },
          this.clock,
        ),
      );
      this.log.debug(
        { operation: c.operation, method: c.method, status: res.status, ms: Math.round(res.durationMs) },
        'platform call',
      );
      if (res.status === 401 && token !== undefined && round === 0) {
        // The token expired or was revoked; one fresh token, one more try (docs/platform-contract.md, "Tokens").
        this.opts.tokens.invalidate(merchantId, token);
        continue;
      }
      return { res };
    }
  }

  /** Tells the reach observer what one request showed: any answer, online; a transport failure, offline at once. */
  private async observed(
    c: { opts: CallOptions | undefined; observe?: boolean },
    send: () => Promise<HttpResponse>,
  ): Promise<HttpResponse> {
    const reach = c.observe === false ? undefined : this.opts.reach;
    try {
      const res = await send();
      reach?.answered();
      return res;
    } catch (err) {
      // The caller's own abort (a sale aborted, the agent stopping) says nothing about the platform.
      if (reach !== undefined && c.opts?.signal?.aborted !== true && isPlatformError(err) && err.status === undefined)
        reach.unreachable(reachReason(err), { answerLost: err.outcomeUnknown });
      throw err;
    }
  }

  /** A token the provider cannot give means the request never left. */
  private async bearer(operation: string, method: HttpMethod, merchantId: string | undefined): Promise<string> {
    try {
      return await this.opts.tokens.tokenFor(merchantId);
    } catch (err) {
      const transient = isPlatformError(err) && err.transient;
      const code = isAgentError(err) ? err.code : ErrorCodes.INTERNAL;
      // A merchant the terminal does not serve keeps its code: an offline upload naming it
      // goes to a person instead of waiting for a platform that will never take it; the
      // platform unreachable says why (docs/payments.md, "Offline card sale and upload",
      // merchant of an offline sale). Token errors carry no token or secret.
      const noMerchant = isAgentError(err, ErrorCodes.AUTH_NO_MERCHANT);
      throw new PlatformError(
        noMerchant || transient
          ? `no access token for ${operation}: ${describeError(err)}`
          : `no access token for ${operation} (${code})`,
        {
          category: transient ? 'network' : 'auth',
          operation,
          method,
          outcomeUnknown: false,
          ...(noMerchant ? { code: ErrorCodes.AUTH_NO_MERCHANT } : {}),
          cause: err,
        },
      );
    }
  }
}

/** Why the platform counts as unreachable, in a clerk's words: no host, port or socket code (those are in the log). */
function reachReason(err: unknown): string {
  if (isPlatformError(err) && err.status === undefined) {
    if (err.category === 'timeout') return 'the platform did not answer in time';
    if (err.transportCode === undefined) return 'no access token for the platform';
    if (err.outcomeUnknown) return 'the connection to the platform broke';
    if (err.category === 'auth') return 'the platform refused the connection';
    return 'the platform could not be reached';
  }
  if (isPlatformError(err)) return `the platform answered ${err.status ?? 'with an error'}`;
  return 'the platform could not be reached';
}

function txPath(transactionId: string): string {
  if (transactionId.length === 0)
    throw new AgentError(ErrorCodes.PLATFORM_BAD_REQUEST, 'transaction id must not be empty');
  return `/payment/v1/transactions/${encodeURIComponent(transactionId)}`;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
