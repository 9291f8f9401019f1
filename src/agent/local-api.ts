import { randomUUID } from 'node:crypto';
import type { Config } from '../config/index.js';
import { logLevelControl, systemClock, type Logger, type LogLevelControl, type TimeSource } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import type { AuditEntry, PaymentsApi, ReportsApi } from '../payments/index.js';
import {
  DEFAULT_PAIRING_LIMITS,
  Idempotency,
  MemoryIdempotencyStore,
  PairingDesk,
  RegisterStore,
  Router,
  SessionStore,
  SseHub,
  apiTransaction,
  checkLoopbackHost,
  createAgentMetrics,
  createLanApi,
  defaultPageDirs,
  listenLocalApi,
  loadOrCreateServerCertificate,
  registerLoopbackRoutes,
  registerRegisterScopedRoutes,
  registersFile,
  trackDevicesFromBus,
  type DeviceStatusSource,
  type HealthSource,
  type IdempotencyStore,
  type LanApi,
  type LocalApiListener,
  type MerchantsSource,
  type MetricsSource,
  type OfflineApiSource,
  type PlatformSignInSource,
  type RegisterRouteDeps,
  type RouteDeps,
  type StaffAuthenticator,
} from '../ui/index.js';

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
  /** auth.mode custom_token: the merchant's sign-in with the platform (ui/local/routes/platform-sign-in.ts); without it the routes refuse. */
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

/**
 * Builds the local API's parts (docs/architecture.md, "Composition root"): the SSE hub, the
 * metrics, the sessions, the router with every loopback route, the registers, the
 * Idempotency-Keys, then the loopback listener and, with api.lan.enabled, the server
 * certificate, the pairing desk and the store-network listener. Stops them in reverse.
 */
export function buildLocalApi(opts: LocalApiOptions): LocalApi {
  const log = opts.log.child({ module: 'local-api' });
  let listener: LocalApiListener | undefined;
  let sse: SseHub | undefined;
  let stopDevices: (() => void) | undefined;
  let lanApi: LanApi | undefined;
  /** What the register routes read of the store-network listener, once it listens. */
  let lanRoutes: RegisterRouteDeps['lan'];
  let served: Router | undefined;

  async function stop(): Promise<void> {
    await lanApi?.stop();
    lanApi = undefined;
    sse?.stop();
    sse = undefined;
    stopDevices?.();
    stopDevices = undefined;
    const open = listener;
    listener = undefined;
    await open?.stop();
  }

  async function start(): Promise<{ url: string; token: string; lan?: { url: string; fingerprint: string } }> {
    const { config } = opts;
    checkLoopbackHost(config);
    const runId = randomUUID();
    const clock = opts.clock ?? systemClock();
    const startedAt = clock.wall();
    const tracker = opts.devices ? undefined : trackDevicesFromBus(opts.bus, config);
    stopDevices = tracker?.stop;
    const devices = opts.devices ? () => opts.devices?.devices() ?? [] : (tracker?.devices ?? (() => []));
    const hub = new SseHub({ bus: opts.bus, log, runId, ...opts.sse });
    hub.start();
    sse = hub;
    const metrics = createAgentMetrics({
      health: opts.health,
      offline: opts.offline,
      devices,
      clock,
      ...(opts.metrics ? { source: opts.metrics } : {}),
    });
    const sessions = new SessionStore(
      { idleMs: config.api.sessionIdleMinutes * 60_000, maxMs: config.api.sessionMaxHours * 3_600_000 },
      clock,
    );
    const deps: RouteDeps = {
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
      metrics,
    };
    const registers = new RegisterStore(registersFile(config.dataDir), clock);
    const router = new Router();
    served = router;
    registerLoopbackRoutes(router, {
      deps,
      pageDirs: opts.pageDirs ?? defaultPageDirs(),
      sessions,
      ...(opts.staff !== undefined ? { staff: opts.staff } : {}),
      ...(opts.platformSignIn !== undefined ? { platformSignIn: opts.platformSignIn } : {}),
      logLevel: opts.logLevel ?? logLevelControl(opts.log),
      ...(opts.audit !== undefined ? { audit: opts.audit } : {}),
      registers: () => ({ registers, lan: lanRoutes }),
      ...(opts.reports !== undefined ? { reports: opts.reports } : {}),
    });
    const idempotency = new Idempotency({
      store: opts.idempotency ?? new MemoryIdempotencyStore(),
      run: runId,
      transaction: async (id) => ({
        transaction: apiTransaction(await opts.payments.get(id), { withEvents: false }),
      }),
    });

    listener = await listenLocalApi({
      config,
      log,
      router,
      sessions,
      idempotency,
      metrics,
      ...(opts.sessionCheckMs !== undefined ? { sessionCheckMs: opts.sessionCheckMs } : {}),
    });
    const { url, token } = listener;
    if (!config.api.lan.enabled) return { url, token };
    // Registers on the store network (docs/registers.md): opt-in, after loopback is up.
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
    const lanListener = createLanApi({
      deps,
      registers,
      pairing,
      certificate,
      log,
      idempotency,
      routes: (payments) => {
        const scoped = new Router();
        registerRegisterScopedRoutes(scoped, { ...deps, payments }, opts.reports);
        return scoped;
      },
    });
    const lan = await lanListener.start();
    lanApi = lanListener;
    lanRoutes = { pairing, ...lan, disconnect: (id) => lanListener.disconnect(id) };
    return { url, token, lan };
  }

  return {
    stop,
    routes: () => served?.list() ?? [],
    async start() {
      try {
        return await start();
      } catch (err) {
        await stop();
        throw err;
      }
    },
  };
}
