import { randomUUID } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The local-API request being served (docs/operations.md, "Logs", request ids): its id and,
 * once the router has matched it, its route. Every log line written while it runs, and by
 * the work it starts (a sale's run after the 202), carries both, and every journal row it
 * makes records the id, so a register's complaint ("request X") leads to the lines and rows.
 */
export interface RequestContext {
  readonly requestId: string;
  /** `METHOD /path/:param` as the route was registered. */
  route?: string;
}

const current = new AsyncLocalStorage<RequestContext>();

/** What a caller may send as X-Request-Id: short, printable, no spaces (anything else gets a new id). */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The caller's X-Request-Id when it is usable, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && CALLER_ID.test(header) ? header : randomUUID();
}

export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return current.run(context, fn);
}

/** The request being served now, if any. */
export function requestContext(): RequestContext | undefined {
  return current.getStore();
}

/** The fields a log line written now carries for its request (none outside a request). */
export function requestLogFields(): { requestId?: string; route?: string } {
  const c = current.getStore();
  if (c === undefined) return {};
  return c.route !== undefined ? { requestId: c.requestId, route: c.route } : { requestId: c.requestId };
}
