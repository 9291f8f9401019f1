import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext } from '../../core/index.js';
import { withOperator } from '../../payments/index.js';
import type { Caller } from './caller.js';
import { sendJson } from './http-io.js';
import { Idempotency, IDEMPOTENT_REPLAY_HEADER } from './idempotency.js';
import type { Router } from './router.js';

/**
 * Runs one authenticated (or public) request through the router: the route's handler on
 * behalf of the caller (its operator on every journal row, its scope for Idempotency-Keys)
 * and the JSON answer. Independent of the listener, so a second listener (registers on the
 * store's network) reuses it with its own callers. Errors are thrown to the listener's
 * error handler.
 */
export function createApiDispatch(deps: { router: Router; idempotency: Idempotency }) {
  return async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    caller: Caller | undefined,
  ): Promise<void> {
    const match = deps.router.match(req.method ?? 'GET', url.pathname);
    // Log lines from here on name the route (core request-context.ts).
    const context = requestContext();
    if (context !== undefined) context.route = `${req.method ?? 'GET'} ${match.path}`;
    const run = () =>
      Promise.resolve(
        match.handler({
          req,
          res,
          params: match.params,
          query: url.searchParams,
          ...(caller !== undefined ? { caller } : {}),
        }),
      );
    let work = run;
    const key = caller === undefined ? undefined : Idempotency.keyOf(req);
    if (caller !== undefined && key !== undefined)
      work = () => deps.idempotency.handle(req, caller.scope, key, `${url.pathname}${url.search}`, run);
    // Every journal row this request makes records who made it (docs/journal.md, "Journal").
    const result = await (caller === undefined ? work() : withOperator(caller.operator, work));
    if (result === undefined) return;
    if (result.replayed === true) res.setHeader(IDEMPOTENT_REPLAY_HEADER, 'true');
    sendJson(res, result.status, result.body);
  };
}
