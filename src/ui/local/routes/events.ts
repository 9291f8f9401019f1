import type { Router } from '../router.js';
import { noQuerySchema, parseInput, queryObject } from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

export function registerEventRoute(router: Router, deps: RouteDeps): void {
  router.add('GET', '/api/v1/events', (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    const last = ctx.req.headers['last-event-id'];
    deps.sse.connect(ctx.res, Array.isArray(last) ? last[0] : last);
    return undefined;
  });
}
