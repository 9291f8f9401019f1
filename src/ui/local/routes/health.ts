import type { Router } from '../router.js';
import type { HealthSource, ApiHealthAnswer, ApiPlatformStatus, ApiReadiness } from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

function safely(f: () => boolean): boolean {
  try {
    return f();
  } catch {
    return false;
  }
}

/** The platform as the health source's watch sees it (one source for /readyz, /api/v1/status and the page). */
export function platformStatus(health: HealthSource): ApiPlatformStatus {
  try {
    if (health.platform) return health.platform();
  } catch {
    return { online: false, state: 'unknown' };
  }
  const online = safely(() => health.platformReachable());
  return { online, state: online ? 'online' : 'offline' };
}

function storageChecks(health: HealthSource): Pick<ApiReadiness['checks'], 'journal' | 'disk'> {
  if (health.storage === undefined) return {};
  try {
    return health.storage();
  } catch (err) {
    const detail = `storage could not be checked: ${err instanceof Error ? err.message : String(err)}`;
    return { journal: { ok: false, detail }, disk: { ok: false, detail } };
  }
}

/**
 * /readyz: token held, platform reachable or offline sales allowed, reader connected, the
 * journal writable and free space above the margin (docs/operations.md, "Health endpoints").
 */
export function readiness(health: HealthSource): ApiReadiness {
  const token = safely(() => health.tokenHeld());
  const platform = platformStatus(health);
  const reachable = platform.online;
  const offline = safely(() => health.offlineAllowed());
  const reader = safely(() => health.readerConnected());
  const checks = {
    token: { ok: token, detail: token ? 'device token held' : 'no valid device token' },
    platform: {
      ok: reachable || offline,
      detail: reachable
        ? 'platform reachable'
        : `platform unreachable${platform.reason !== undefined ? ` (${platform.reason})` : ''}${offline ? '; offline sales allowed' : ' and offline sales not allowed'}`,
    },
    reader: { ok: reader, detail: reader ? 'card reader connected' : 'card reader not connected' },
    ...storageChecks(health),
  };
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

/** Health routes come before authentication so that a supervisor can probe them. */
export function registerHealthRoutes(router: Router, deps: Pick<RouteDeps, 'health'>): void {
  router.add('GET', '/healthz', () => ({ status: 200, body: { status: 'ok' } satisfies ApiHealthAnswer }));
  router.add('GET', '/readyz', () => {
    const r = readiness(deps.health);
    return { status: r.ready ? 200 : 503, body: r };
  });
}
