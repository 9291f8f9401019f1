import type { LogLevelControl } from '../../core/index.js';
import type { AuditEntry, ReportsApi } from '../../payments/index.js';
import type { PlatformSignInSource, StaffAuthenticator } from '../shared/index.js';
import type { Router } from './router.js';
import type { RouteDeps } from './routes/deps.js';
import { registerEventRoute } from './routes/events.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerLogLevelRoutes } from './routes/log-level.js';
import { registerMerchantRoutes } from './routes/merchants.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerOfflineRoutes } from './routes/offline.js';
import { registerOpenApiRoute } from './routes/openapi.js';
import { registerPaymentRoutes } from './routes/payments.js';
import { registerPlatformSignInRoutes } from './routes/platform-sign-in.js';
import { registerQrRoute } from './routes/qr.js';
import { registerReceiptRoutes } from './routes/receipts.js';
import { registerRegisterRoutes, type RegisterRouteDeps } from './routes/registers.js';
import { registerReportRoutes } from './routes/reports.js';
import { registerSessionRoutes } from './routes/session.js';
import { registerStatusRoutes } from './routes/status.js';
import type { SessionStore } from './session-store.js';
import { registerPageRoutes } from './static-page.js';

export interface LoopbackRouteOptions {
  /** What the payment, status, offline, merchant, QR and event routes are given. */
  deps: RouteDeps;
  /** Where the counter page's files are looked for. */
  pageDirs: string[];
  sessions: SessionStore;
  /** Staff sign-in for the counter page; without it nobody can sign in (programs still use the token). */
  staff?: StaffAuthenticator;
  /** auth.mode custom_token: the merchant's sign-in with the platform (routes/platform-sign-in.ts); without it the routes refuse. */
  platformSignIn?: PlatformSignInSource;
  /** What PUT /api/v1/log-level changes. */
  logLevel: LogLevelControl;
  /** Writes an audit row to the journal (a change that hides what the terminal records); throws when it cannot. */
  audit?: (entry: AuditEntry) => void;
  /** The paired registers and, while it listens, the store-network listener, read at each request. */
  registers: () => RegisterRouteDeps;
  /** Receipts and the end-of-day report (docs/receipts.md); without it their routes are not served. */
  reports?: ReportsApi;
}

/** Adds every route the loopback listener serves to `router` (docs/counter-page.md, "Local API and counter page"). */
export function registerLoopbackRoutes(router: Router, opts: LoopbackRouteOptions): void {
  const { deps, sessions } = opts;
  const { config, log } = deps;
  registerHealthRoutes(router, { health: deps.health });
  registerMetricsRoute(router, { metrics: deps.metrics });
  registerPageRoutes(router, { dirs: opts.pageDirs });
  registerSessionRoutes(router, {
    config,
    log,
    sessions,
    staff: opts.staff,
    platformSignIn: opts.platformSignIn !== undefined,
  });
  registerPlatformSignInRoutes(router, { config, log, sessions, signIn: opts.platformSignIn });
  registerPaymentRoutes(router, deps);
  registerStatusRoutes(router, deps);
  registerOfflineRoutes(router, deps);
  registerMerchantRoutes(router, deps);
  registerQrRoute(router, deps);
  registerEventRoute(router, deps);
  registerLogLevelRoutes(router, {
    log,
    logLevel: opts.logLevel,
    ...(opts.audit !== undefined ? { audit: opts.audit } : {}),
  });
  registerRegisterRoutes(router, { log }, opts.registers);
  if (opts.reports !== undefined) {
    registerReceiptRoutes(router, { reports: opts.reports });
    registerReportRoutes(router, { reports: opts.reports });
  }
  // Last: the document describes every route above (docs/local-api.md, "The document").
  registerOpenApiRoute(router);
}

/**
 * The routes a paired register is served over its own payments (docs/registers.md): the
 * loopback payment routes, and receipts when the agent keeps them.
 */
export function registerRegisterScopedRoutes(router: Router, deps: RouteDeps, reports: ReportsApi | undefined): void {
  registerPaymentRoutes(router, deps);
  if (reports !== undefined) registerReceiptRoutes(router, { reports });
}
