import { createRequire } from 'node:module';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/index.js';
import {
  AgentError,
  ErrorCodes,
  logLevelControl,
  requestIdFrom,
  systemClock,
  withRequestContext,
  type Logger,
  type LogLevelControl,
  type TimeSource,
} from '../core/index.js';
import { REQUEST_ID_HEADER } from './client-header.js';
import type { EventBus } from '../events/index.js';
import type { AuditEntry, PaymentsApi, ReportsApi } from '../payments/index.js';
import { trackDevicesFromBus } from './device-tracker.js';
import { answerError, closeServer } from './error-answer.js';
import { answerClientError } from './http-io.js';
import { loadOrCreateLocalToken } from './local-token.js';
import { allowedHosts, allowedOrigins, checkHost, checkOrigin } from './request-guard.js';
import { createAgentMetrics, isSqliteError, type AgentMetrics, type MetricsSource } from './metrics/index.js';
import { createApiDispatch } from './api-dispatch.js';
import { authenticate, type Caller } from './caller.js';
import { Idempotency, MemoryIdempotencyStore, type IdempotencyStore } from './idempotency.js';
import { apiTransaction } from './api-views.js';
import { registerOpenApiRoute } from './routes/openapi.js';
import { Router } from './router.js';
import { registerEventRoute } from './routes/events.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerLogLevelRoutes } from './routes/log-level.js';
import { registerMerchantRoutes } from './routes/merchants.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerOfflineRoutes } from './routes/offline.js';
import { registerPaymentRoutes } from './routes/payments.js';
import { registerQrRoute } from './routes/qr.js';
import { registerRegisterRoutes, type RegisterRouteDeps } from './routes/registers.js';
import { createLanApi, type LanApi } from './lan/lan-api.js';
import { DEFAULT_PAIRING_LIMITS, PairingDesk } from './lan/pairing.js';
import { RegisterStore, registersFile } from './lan/register-store.js';
import { loadOrCreateServerCertificate } from './lan/server-certificate.js';
import { registerReceiptRoutes } from './routes/receipts.js';
import { registerReportRoutes } from './routes/reports.js';
import { registerSessionRoutes } from './routes/session.js';
import { registerStatusRoutes } from './routes/status.js';
import type { DeviceStatusSource, HealthSource, MerchantsSource, OfflineApiSource } from './sources.js';
import { SessionStore } from './session-store.js';
import { SseHub } from './sse-hub.js';
import type { PlatformSignInSource, StaffAuthenticator } from './staff-source.js';
import { registerPlatformSignInRoutes } from './routes/platform-sign-in.js';
import { defaultPageDirs, registerPageRoutes } from './static-page.js';

// node:http through require, not an ES import: the ES import builds node:http's module
// facade, which reads every export, among them the lazy WebSocket getter that loads node's
// own copy of undici and compiles its WebAssembly HTTP parser (about 10 MiB of RSS in an
// empty node), which the agent never uses (docs/performance.md, "Memory").
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export interface LocalApiOptions {
  config: Config;
  payments: PaymentsApi;
  bus: EventBus;
  log: Logger;
  health: HealthSource;
  offline?: OfflineApiSource;
  /** The terminal's merchants (GET /api/v1/merchants); without it the list is empty. */
  merchants?: MerchantsSource;
  /** Default: device states as last published on the bus. */
  devices?: DeviceStatusSource;
  /** Where the counter page's files are looked for (default: dist/ui/page, then src/ui/page). */
  pageDirs?: string[];
  sse?: { capacity?: number; heartbeatMs?: number };
  /** Start time and uptime, session timeouts (docs/architecture.md, "Time"); default the system clock. */
  clock?: TimeSource;
  /** Certificate and token figures for GET /metrics; without it those figures are absent. */
  metrics?: MetricsSource;
  /** What PUT /api/v1/log-level changes; default the level of `log` itself. */
  logLevel?: LogLevelControl;
  /** Writes an audit row to the journal (a change that hides what the terminal records); throws when it cannot. */
  audit?: (entry: AuditEntry) => void;
  /** Staff sign-in for the counter page; without it nobody can sign in (programs still use the token). */
  staff?: StaffAuthenticator;
  /** auth.mode custom_token: the merchant's sign-in with the platform (routes/platform-sign-in.ts); without it the routes refuse. */
  platformSignIn?: PlatformSignInSource;
  /** How often an open event stream checks that its session is still alive (default 30 s). */
  sessionCheckMs?: number;
  /** Receipts and the end-of-day report (docs/receipts.md); without it their routes are not served. */
  reports?: ReportsApi;
  /**
   * Where Idempotency-Keys are kept (docs/local-api.md, "Idempotency"): the agent passes the
   * journal's (kept across restarts); without it, in memory only.
   */
  idempotency?: IdempotencyStore;
}

export interface LocalApi {
  /** Listens on the configured loopback address (and the store network when api.lan.enabled); resolves with the base URL and the local token. */
  start(): Promise<{ url: string; token: string; lan?: { url: string; fingerprint: string } }>;
  stop(): Promise<void>;
  /** The routes served (method and path as registered), once started: the OpenAPI document is checked against them. */
  routes(): Array<{ method: string; path: string }>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';
}

/**
 * The local API and counter page (docs/counter-page.md, "Local API and counter page"):
 * node:http on loopback only, Host and Origin checked, health routes, the page and staff
 * sign-in before authentication (none of them hands out a credential), every /api/*
 * request carrying the per-install token or a staff session cookie, thin routes over
 * the payments engine, SSE fed from the bus, and one error handler last, which answers
 * with the status of the error's code (error-status.ts) and nothing else.
 */
export function createLocalApi(opts: LocalApiOptions): LocalApi {
  const log = opts.log.child({ module: 'local-api' });
  let server: Server | undefined;
  let sse: SseHub | undefined;
  let stopDevices: (() => void) | undefined;
  let metrics: AgentMetrics | undefined;
  let lanApi: LanApi | undefined;
  let served: Router | undefined;

  function fail(err: unknown, req: IncomingMessage, res: ServerResponse): void {
    if (isSqliteError(err)) metrics?.journalWriteError();
    answerError(err, req, res, log);
  }

  async function stop(): Promise<void> {
    await lanApi?.stop();
    lanApi = undefined;
    sse?.stop();
    sse = undefined;
    stopDevices?.();
    stopDevices = undefined;
    const srv = server;
    server = undefined;
    if (srv === undefined) return;
    await closeServer(srv);
  }

  return {
    stop,
    routes: () => served?.list() ?? [],
    async start() {
      const { config } = opts;
      if (!LOOPBACK_HOSTS.has(config.api.host)) {
        throw new AgentError(
          ErrorCodes.CONFIG_INVALID,
          `config: api.host must be a loopback address (127.0.0.1, ::1 or localhost), not ${config.api.host}`,
        );
      }
      const token = loadOrCreateLocalToken(config.dataDir, log);
      const runId = randomUUID();
      const clock = opts.clock ?? systemClock();
      const startedAt = clock.wall();
      const tracker = opts.devices ? undefined : trackDevicesFromBus(opts.bus, config);
      stopDevices = tracker?.stop;
      const devices = opts.devices ? () => opts.devices?.devices() ?? [] : (tracker?.devices ?? (() => []));
      const hub = new SseHub({ bus: opts.bus, log, runId, ...opts.sse });
      hub.start();
      sse = hub;

      const agentMetrics = createAgentMetrics({
        health: opts.health,
        offline: opts.offline,
        devices,
        clock,
        ...(opts.metrics ? { source: opts.metrics } : {}),
      });
      metrics = agentMetrics;

      const store = new SessionStore(
        { idleMs: config.api.sessionIdleMinutes * 60_000, maxMs: config.api.sessionMaxHours * 3_600_000 },
        clock,
      );
      const router = new Router();
      served = router;
      registerHealthRoutes(router, { health: opts.health });
      registerMetricsRoute(router, { metrics: agentMetrics });
      registerPageRoutes(router, { dirs: opts.pageDirs ?? defaultPageDirs() });
      registerSessionRoutes(router, {
        config,
        log,
        sessions: store,
        staff: opts.staff,
        platformSignIn: opts.platformSignIn !== undefined,
      });
      registerPlatformSignInRoutes(router, { config, log, sessions: store, signIn: opts.platformSignIn });
      const deps = {
        config,
        payments: opts.payments,
        log,
        health: opts.health,
        offline: opts.offline,
        merchants: opts.merchants,
        devices,
        sse: hub,
        runId,
        startedAt,
        clock,
        metrics: agentMetrics,
      };
      registerPaymentRoutes(router, deps);
      registerStatusRoutes(router, deps);
      registerOfflineRoutes(router, deps);
      registerMerchantRoutes(router, deps);
      registerQrRoute(router, deps);
      registerEventRoute(router, deps);
      registerLogLevelRoutes(router, {
        log,
        logLevel: opts.logLevel ?? logLevelControl(opts.log),
        ...(opts.audit !== undefined ? { audit: opts.audit } : {}),
      });
      const registers = new RegisterStore(registersFile(config.dataDir), clock);
      let lanRoutes: RegisterRouteDeps['lan'];
      registerRegisterRoutes(router, { log }, () => ({ registers, lan: lanRoutes }));
      if (opts.reports !== undefined) {
        registerReceiptRoutes(router, { reports: opts.reports });
        registerReportRoutes(router, { reports: opts.reports });
      }
      // Last: the document describes every route above (docs/local-api.md, "The document").
      registerOpenApiRoute(router);
      const idempotency = new Idempotency({
        store: opts.idempotency ?? new MemoryIdempotencyStore(),
        run: runId,
        transaction: async (id) => ({
          transaction: apiTransaction(await opts.payments.get(id), { withEvents: false }),
        }),
      });
      const dispatch = createApiDispatch({ router, idempotency });

      const checkMs = opts.sessionCheckMs ?? 30_000;
      /** An event stream of the page lasts as long as its session: sign-out or a timeout closes it. */
      function closeWithSession(id: string, sessionStore: SessionStore, res: ServerResponse): void {
        const close = (): void => {
          res.destroy();
        };
        const forget = sessionStore.whenEnded(id, close);
        const timer = setInterval(() => {
          if (!sessionStore.isAlive(id)) close();
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
              caller = authenticate(req, url.pathname, { token, sessions: store, config });
          }
          if (caller?.sessionId !== undefined && url.pathname === '/api/v1/events')
            closeWithSession(caller.sessionId, store, res);
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
      try {
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
      } catch (err) {
        await stop();
        throw err;
      }
      server = srv;
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
      if (!config.api.lan.enabled) return { url, token };
      // Registers on the store network (docs/registers.md): opt-in, after loopback is up.
      try {
        const certificate = loadOrCreateServerCertificate(
          config.dataDir,
          config.api.lan.hostNames,
          log,
          new Date(clock.wall()),
        );
        const pairing = new PairingDesk(registers, clock, {
          ...DEFAULT_PAIRING_LIMITS,
          codeTtlMs: config.api.lan.pairingCodeSeconds * 1_000,
        });
        const listener = createLanApi({
          deps,
          registers,
          pairing,
          certificate,
          log,
          idempotency,
          ...(opts.reports !== undefined ? { reports: opts.reports } : {}),
        });
        const lan = await listener.start();
        lanApi = listener;
        lanRoutes = { pairing, ...lan, disconnect: (id) => listener.disconnect(id) };
        return { url, token, lan };
      } catch (err) {
        await stop();
        throw err;
      }
    },
  };
}
