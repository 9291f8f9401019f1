import type { AgentMetrics } from '../metrics/index.js';
import { sendText } from '../http-io.js';
import type { Router } from '../router.js';

/**
 * GET /metrics, OpenMetrics text for a fleet's scraper on the terminal. Served without
 * the per-install token, like /healthz: a node exporter or agent scraping loopback has no
 * way to hold it, and no figure carries a secret (counts, ages, states, merchant ids).
 * The loopback bind and the Host check still apply (docs/operations.md, "Metrics").
 */
export function registerMetricsRoute(router: Router, deps: { metrics: AgentMetrics }): void {
  router.add('GET', '/metrics', async (ctx) => {
    const text = await deps.metrics.registry.metrics();
    sendText(ctx.res, 200, deps.metrics.registry.contentType, text);
    return undefined;
  });
}
