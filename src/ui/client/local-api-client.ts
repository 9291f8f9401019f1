import { readFileSync } from 'node:fs';
import type { Config } from '../../config/index.js';
import { AgentError, ErrorCodes, undiciRequest, type ErrorCode } from '../../core/index.js';
import {
  CLIENT_HEADER,
  localTokenPath,
  type ApiAgentStatus,
  type ApiAllowedOperations,
  type ApiAllowedOperationsAnswer,
  type ApiCancelRequest,
  type ApiCaptureRequest,
  type ApiDevicesAnswer,
  type ApiDeviceStatus,
  type ApiLogLevel,
  type ApiLogLevelAnswer,
  type ApiMerchant,
  type ApiMerchantsAnswer,
  type ApiOfflineAnswer,
  type ApiOfflineItem,
  type ApiOfflineItemAnswer,
  type ApiRefundByWebRequest,
  type ApiRefundRequest,
  type ApiSaleRequest,
  type ApiTransaction,
  type ApiTransactionAnswer,
  type ApiTransactionListAnswer,
} from '../shared/index.js';

/** What the CLI asks of an operation on a sale (cancel, refund, refund-by-web and capture bodies). */
export type ApiOperationRequest = ApiCancelRequest | ApiRefundRequest | ApiRefundByWebRequest | ApiCaptureRequest;

const KNOWN_CODES = new Set<string>(Object.values(ErrorCodes));

/** The local API's base URL from config (api.host, api.port). */
export function localApiUrl(config: Config): string {
  if (config.api.port === 0) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      "api.port is 0 (any free port): give the running agent's port with --api-port",
    );
  }
  const host = config.api.host === '::1' ? '[::1]' : config.api.host;
  return `http://${host}:${config.api.port}`;
}

/** The per-install token the agent wrote at its first start. */
export function readLocalToken(dataDir: string): string {
  const file = localTokenPath(dataDir);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token !== '') return token;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES') {
      throw new AgentError(
        ErrorCodes.API_UNAUTHORIZED,
        `cannot read the local API token ${file}: permission denied (run as the agent's user)`,
      );
    }
    if (code !== 'ENOENT')
      throw new AgentError(ErrorCodes.API_UNAUTHORIZED, `cannot read the local API token ${file}: ${code ?? 'error'}`);
  }
  throw new AgentError(
    ErrorCodes.API_UNAVAILABLE,
    `no local API token at ${file}: the agent has not been started with this data directory (start it with "terminal-agent start", or pass --data-dir)`,
  );
}

/**
 * Reads page after page (docs/local-api.md, "Paging"), at most `maxPage` items a request,
 * until `wanted` items or the last page; `next` when more follow.
 */
async function readPages<T>(
  wanted: number,
  maxPage: number,
  page: (limit: number, after: string | undefined) => Promise<{ items: T[]; next?: string }>,
): Promise<{ items: T[]; next?: string }> {
  const items: T[] = [];
  let after: string | undefined;
  do {
    const p = await page(Math.min(maxPage, wanted - items.length), after);
    items.push(...p.items);
    after = p.next;
  } while (after !== undefined && items.length < wanted);
  return { items, ...(after !== undefined ? { next: after } : {}) };
}

/**
 * The client of the running agent's local API, for the CLI and diagnostics: JSON over
 * loopback with the local token (docs/counter-page.md, "Local API and counter page").
 * Errors come back as AgentError with the agent's code and message (the HTTP status in
 * `details.status`); no agent answering is API_UNAVAILABLE with what to do.
 */
export class LocalApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 30_000,
  ) {}

  static fromConfig(config: Config): LocalApiClient {
    const url = localApiUrl(config);
    return new LocalApiClient(url, readLocalToken(config.dataDir));
  }

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object): Promise<T> {
    let res;
    try {
      res = await undiciRequest(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          // Rows this client makes record `cli` as their operator (docs/journal.md, "Journal").
          [CLIENT_HEADER]: 'cli',
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL') {
        throw new AgentError(
          ErrorCodes.API_UNAVAILABLE,
          `the agent is not running: nothing answers at ${this.baseUrl} (start it with "terminal-agent start", or check --api-port)`,
          {
            cause: err,
          },
        );
      }
      throw new AgentError(
        ErrorCodes.API_UNAVAILABLE,
        `cannot reach the agent at ${this.baseUrl}: ${code ?? (err as Error).message}`,
        { cause: err },
      );
    }
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new AgentError(
        ErrorCodes.API_UNAVAILABLE,
        `something else answers at ${this.baseUrl} (not JSON): is --api-port the agent's port?`,
      );
    }
    if (res.statusCode >= 400) {
      const error = (json as { error?: { code?: unknown; message?: unknown } }).error;
      const code =
        typeof error?.code === 'string' && KNOWN_CODES.has(error.code) ? (error.code as ErrorCode) : 'INTERNAL';
      const message = typeof error?.message === 'string' ? error.message : `the agent answered HTTP ${res.statusCode}`;
      throw new AgentError(code, message, { details: { status: res.statusCode } });
    }
    return json as T;
  }

  async startSale(input: ApiSaleRequest): Promise<ApiTransaction> {
    return (await this.call<ApiTransactionAnswer>('POST', '/api/v1/sales', { ...input })).transaction;
  }

  async abortSale(id: string): Promise<ApiTransaction> {
    return (await this.call<ApiTransactionAnswer>('POST', `/api/v1/sales/${encodeURIComponent(id)}/abort`, {}))
      .transaction;
  }

  /** `merchantId`: whose token looks up an id the journal does not know (a web order of another merchant). */
  async transaction(id: string, refresh = false, merchantId?: string): Promise<ApiTransaction> {
    const params = new URLSearchParams();
    if (refresh) params.set('refresh', '1');
    if (merchantId !== undefined) params.set('merchantId', merchantId);
    const q = params.size > 0 ? `?${params.toString()}` : '';
    return (await this.call<ApiTransactionAnswer>('GET', `/api/v1/transactions/${encodeURIComponent(id)}${q}`))
      .transaction;
  }

  /** Up to `limit` rows (newest first), page after page (docs/local-api.md, "Paging"). */
  async transactions(query: { date?: string; reference?: string; limit?: number }): Promise<ApiTransaction[]> {
    const { items } = await readPages(query.limit ?? 100, 500, async (limit, after) => {
      const q = new URLSearchParams();
      if (query.date !== undefined) q.set('date', query.date);
      if (query.reference !== undefined) q.set('reference', query.reference);
      q.set('limit', String(limit));
      if (after !== undefined) q.set('after', after);
      const page = await this.call<ApiTransactionListAnswer>('GET', `/api/v1/transactions?${q.toString()}`);
      return { items: page.transactions, ...(page.next !== undefined ? { next: page.next } : {}) };
    });
    return items;
  }

  async allowedOperations(id: string): Promise<ApiAllowedOperations> {
    return (
      await this.call<ApiAllowedOperationsAnswer>(
        'GET',
        `/api/v1/transactions/${encodeURIComponent(id)}/allowed-operations`,
      )
    ).allowedOperations;
  }

  async operate(
    op: 'cancel' | 'refund' | 'refund-by-web' | 'capture',
    id: string,
    body: ApiOperationRequest,
  ): Promise<ApiTransaction> {
    return (await this.call<ApiTransactionAnswer>('POST', `/api/v1/transactions/${encodeURIComponent(id)}/${op}`, body))
      .transaction;
  }

  async captureAll(merchantId?: string): Promise<ApiTransaction[]> {
    return (
      await this.call<ApiTransactionListAnswer>(
        'POST',
        '/api/v1/capture-all',
        merchantId !== undefined ? { merchantId } : {},
      )
    ).transactions;
  }

  async status(): Promise<ApiAgentStatus> {
    return this.call<ApiAgentStatus>('GET', '/api/v1/status');
  }

  async devices(): Promise<ApiDeviceStatus[]> {
    return (await this.call<ApiDevicesAnswer>('GET', '/api/v1/devices')).devices;
  }

  /**
   * Offline queue levels and one page of items (no card data), oldest first; `states` as in
   * GET /api/v1/offline?state=, `page.after` the answer's `next` of the page before
   * (docs/local-api.md, "Paging").
   */
  async offlineQueue(
    states?: readonly string[],
    page: { after?: string; limit?: number } = {},
  ): Promise<ApiOfflineAnswer> {
    const q = new URLSearchParams();
    if (states !== undefined && states.length > 0) q.set('state', states.join(','));
    if (page.limit !== undefined) q.set('limit', String(page.limit));
    if (page.after !== undefined) q.set('after', page.after);
    return this.call<ApiOfflineAnswer>('GET', `/api/v1/offline${q.size > 0 ? `?${q.toString()}` : ''}`);
  }

  /** Up to `limit` items of the offline queue (oldest first), page after page; `next` when more follow. */
  async offlineItems(query: {
    states?: readonly string[];
    limit?: number;
  }): Promise<{ items: ApiOfflineItem[]; next?: string }> {
    return readPages(query.limit ?? 100, 1000, (limit, after) =>
      this.offlineQueue(query.states, { limit, ...(after !== undefined ? { after } : {}) }),
    );
  }

  /** Puts an offline sale needing attention back into the queue. */
  async requeueOffline(id: string): Promise<ApiOfflineItem> {
    return (await this.call<ApiOfflineItemAnswer>('POST', `/api/v1/offline/${encodeURIComponent(id)}/requeue`, {}))
      .item;
  }

  /** The running agent's log level now, or changes it (until the next start or configuration reload). */
  async logLevel(level?: ApiLogLevel): Promise<ApiLogLevelAnswer> {
    return level === undefined
      ? this.call<ApiLogLevelAnswer>('GET', '/api/v1/log-level')
      : this.call<ApiLogLevelAnswer>('PUT', '/api/v1/log-level', { level });
  }

  async merchants(): Promise<ApiMerchant[]> {
    return (await this.call<ApiMerchantsAnswer>('GET', '/api/v1/merchants')).merchants;
  }
}
