import { apiMerchant } from '../api-views.js';
import type { Router } from '../router.js';
import { noQuerySchema, parseInput, queryObject, type ApiMerchantsAnswer } from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

/**
 * The merchants this terminal acts for (docs/platform-contract.md, "Tokens"), for the page's merchant picker
 * and the CLI's `sale --merchant`. Names and ids only: never a client secret. Empty until
 * the agent has read its credentials (or when no source is given).
 */
export function registerMerchantRoutes(router: Router, deps: RouteDeps): void {
  router.add('GET', '/api/v1/merchants', (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    const merchants = deps.merchants?.merchants() ?? [];
    return { status: 200, body: { merchants: merchants.map(apiMerchant) } satisfies ApiMerchantsAnswer };
  });
}
