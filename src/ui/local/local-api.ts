import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../config/index.js';
import { AgentError, ErrorCodes, requestIdFrom, withRequestContext, type Logger } from '../../core/index.js';
import { isSqliteError, type AgentMetrics } from '../metrics/index.js';
import { REQUEST_ID_HEADER, loadOrCreateLocalToken } from '../shared/index.js';
import { createApiDispatch } from './api-dispatch.js';
import { authenticate, type Caller } from './caller.js';
import { answerError, closeServer } from './error-answer.js';
import { answerClientError } from './http-io.js';
import type { Idempotency } from './idempotency.js';
import { allowedHosts, allowedOrigins, checkHost, checkOrigin } from './request-guard.js';
import type { Router } from './router.js';
import type { SessionStore } from './session-store.js';

// node:http through require, not an ES import: the ES import builds node:http's module
// facade, which reads every export, among them the lazy WebSocket getter that loads node's
// own copy of undici and compiles its WebAssembly HTTP parser (about 10 MiB of RSS in an
// empty node), which the agent never uses (docs/performance.md, "Memory").
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** What the loopback listener is handed, built by the composition root (docs/architecture.md, "Composition root"). */
export interface LocalApiParts {
  config: Config;
  /** The local API's logger. */
  log: Logger;
  /** Every loopback route, registered (loopback-routes.ts). */
  router: Router;
  /** The clerks' sessions of the counter page. */
  sessions: SessionStore;
  /** Idempotency-Keys (docs/local-api.md, "Idempotency"). */
  idempotency: Idempotency;
  /** Counts the journal's write errors among the answers (GET /metrics). */
  metrics: AgentMetrics;
  /** How often an open event stream checks that its session is still alive (default 30 s). */
  sessionCheckMs?: number;
}

/** The loopback listener, listening. */
export interface LocalApiListener {
  /** The base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The per-install token (never logged). */
  token: string;
  stop(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';
}

/** Refuses an api.host that is not loopback (docs/architecture.md, "Invariants"), before anything is built or listens. */
export function checkLoopbackHost(config: Config): void {
  if (!LOOPBACK_HOSTS.has(config.api.host)) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `config: api.host must be a loopback address (127.0.0.1, ::1 or localhost), not ${config.api.host}`,
    );
  }
}

/**
 * The local API and counter page (docs/counter-page.md, "Local API and counter page"):
 * node:http on loopback only, Host and Origin checked, health routes, the page and staff
 * sign-in before authentication (none of them hands out a credential), every /api/*
 * request carrying the per-install token or a staff session cookie, the routes given in
 * `parts.router`, and one error handler last, which answers with the status of the
 * error's code (ui/shared/error-status.ts) and nothing else. Resolves once it listens.
 */
export async function listenLocalApi(parts: LocalApiParts): Promise<LocalApiListener> {
  const { config, log, router, sessions, idempotency, metrics } = parts;
  checkLoopbackHost(config);
  const token = loadOrCreateLocalToken(config.dataDir, log);
  const dispatch = createApiDispatch({ router, idempotency });

  function fail(err: unknown, req: IncomingMessage, res: ServerResponse): void {
    if (isSqliteError(err)) metrics.journalWriteError();
    answerError(err, req, res, log);
  }

  const checkMs = parts.sessionCheckMs ?? 30_000;
  /** An event stream of the page lasts as long as its session: sign-out or a timeout closes it. */
  function closeWithSession(id: string, res: ServerResponse): void {
    const close = (): void => {
      res.destroy();
    };
    const forget = sessions.whenEnded(id, close);
    const timer = setInterval(() => {
      if (!sessions.isAlive(id)) close();
    }, checkMs);
    timer.unref();
    res.once('close', () => {
      clearInterval(timer);
      forget();
    });
  }

  let hosts = new Set<string>();
  let origins = new Set<string>();
  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Every answer names its request id, the caller's X-Request-Id or a new one (docs/local-api.md, "Request ids").
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    return withRequestContext({ requestId }, () => serve(req, res));
  };
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      checkHost(req, hosts);
      const isHealth = url.pathname === '/healthz' || url.pathname === '/readyz';
      let caller: Caller | undefined;
      if (!isHealth) {
        checkOrigin(req, origins);
        // /metrics is outside /api: read without the token by a local scraper (routes/metrics.ts).
        if (url.pathname === '/api' || url.pathname.startsWith('/api/'))
          caller = authenticate(req, url.pathname, { token, sessions, config });
      }
      if (caller?.sessionId !== undefined && url.pathname === '/api/v1/events') closeWithSession(caller.sessionId, res);
      await dispatch(req, res, url, caller);
    } catch (err) {
      fail(err, req, res);
    }
  };

  const srv = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    void handle(req, res);
  });
  srv.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    log.debug({ code: err.code }, 'malformed HTTP request refused');
    answerClientError(err, socket);
  });
  await new Promise<void>((resolve, reject) => {
    srv.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new AgentError(
          ErrorCodes.CONFIG_INVALID,
          `local API cannot listen on ${config.api.host}:${config.api.port}: ${err.code ?? err.message}`,
          { cause: err },
        ),
      ),
    );
    srv.listen(config.api.port, config.api.host, () => resolve());
  });
  const stop = (): Promise<void> => closeServer(srv);
  const address = srv.address() as AddressInfo;
  if (!isLoopbackAddress(address.address)) {
    await stop();
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `local API bound to ${address.address}, which is not loopback; refusing to serve`,
    );
  }
  hosts = allowedHosts(address.port);
  origins = allowedOrigins(address.port);
  const hostText = config.api.host === '::1' ? '[::1]' : config.api.host;
  const url = `http://${hostText}:${address.port}`;
  log.info({ url }, 'local API and counter page listening');
  return { url, token, stop };
}
