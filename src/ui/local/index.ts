/**
 * The local (loopback) API (docs/counter-page.md, "Local API and counter page"): the
 * listener, its routes, the counter page's sessions, Idempotency-Keys, the event stream
 * (SSE) and the request dispatch the store-network listener reuses. Its parts are built by
 * the composition root and handed to `listenLocalApi`.
 */
export { checkLoopbackHost, listenLocalApi, type LocalApiListener, type LocalApiParts } from './local-api.js';
export { registerLoopbackRoutes, registerRegisterScopedRoutes, type LoopbackRouteOptions } from './loopback-routes.js';
export { createApiDispatch } from './api-dispatch.js';
export { apiTransaction } from './api-views.js';
export type { Caller } from './caller.js';
export { trackDevicesFromBus } from './device-tracker.js';
export { answerError, closeServer } from './error-answer.js';
export { answerClientError, readJsonBody, sendJson } from './http-io.js';
export {
  IDEMPOTENCY_RETENTION_MS,
  Idempotency,
  MemoryIdempotencyStore,
  type IdempotencyDeps,
  type IdempotencyStore,
} from './idempotency.js';
export { Router, type RouteContext, type RouteHandler } from './router.js';
export type { RouteDeps } from './routes/deps.js';
export type { PairingCodes, RegisterList, RegisterRouteDeps } from './routes/registers.js';
export { SessionStore, type SessionLimits } from './session-store.js';
export { SseHub, type EventNumbering, type SseHubOptions } from './sse-hub.js';
export { defaultPageDirs } from './static-page.js';
