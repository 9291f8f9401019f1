import type { AgentMetrics } from '../../metrics/index.js';
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
    // OpenMetrics to a scraper that asks for it (Prometheus does), else the text format 0.0.4
    // every other reader takes (docs/operations.md, "Metrics").
    const registry = wantsOpenMetrics(ctx.req.headers.accept) ? deps.metrics.registry : deps.metrics.textRegistry;
    sendText(ctx.res, 200, registry.contentType, await registry.metrics());
    return undefined;
  });
}

/** Whether an Accept header lists OpenMetrics text with a weight above 0. */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'application/openmetrics-text') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
