import { defaultCaptureMode, packageVersion } from '../../../config/index.js';
import type { Router } from '../router.js';
import {
  noQuerySchema,
  parseInput,
  queryObject,
  type ApiAgentStatus,
  type ApiDevicesAnswer,
  type ApiOfflineLevels,
} from '../../shared/index.js';
import { apiOffline } from '../api-views.js';
import { platformStatus, readiness } from './health.js';
import type { RouteDeps } from './deps.js';

async function offlineLevels(deps: RouteDeps): Promise<ApiOfflineLevels | null> {
  return deps.offline ? apiOffline(await deps.offline.levels()) : null;
}

export function registerStatusRoutes(router: Router, deps: RouteDeps): void {
  // Read once: the version of the code this process runs, even when the package is upgraded under it.
  const version = packageVersion();
  router.add('GET', '/api/v1/status', async (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    const r = readiness(deps.health);
    const body: ApiAgentStatus = {
      agent: {
        version,
        run: deps.runId,
        startedAt: new Date(deps.startedAt).toISOString(),
        uptimeSeconds: Math.round((deps.clock.wall() - deps.startedAt) / 1000),
        environment: deps.config.environment,
        defaultCurrency: deps.config.payments.defaultCurrency,
        merchantId: deps.config.auth.merchantId ?? null,
        // With a per-merchant setting: the mode of the merchants it does not name (docs/operations.md, payments.captureMode).
        captureMode: defaultCaptureMode(deps.config.payments.captureMode),
      },
      ready: r.ready,
      checks: r.checks,
      platform: platformStatus(deps.health),
      devices: deps.devices(),
      offline: await offlineLevels(deps),
    };
    return { status: 200, body };
  });

  router.add('GET', '/api/v1/devices', (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    return { status: 200, body: { devices: deps.devices() } satisfies ApiDevicesAnswer };
  });
}
