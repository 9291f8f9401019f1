import { faultSpecSchema } from './faults.js';
import { SimHttpError, type SimRouter } from './router.js';
import type { SimContext } from './context.js';
import { isSimProfileName, SIM_PROFILES } from './profile.js';
import type { SimAuthServer } from './auth/index.js';
import type { SimPaymentPlatform } from './payments/index.js';
import { MAX_UNREACHABLE_SECONDS, type Reachability } from './unreachable.js';

/**
 * Control endpoints under /sim/control for tests and field demos: faults and the clock
 * here; the auth server and the payment platform add their own (secret renewal, wallet
 * pay/fail/expire, ledger).
 */
export function registerControlRoutes(
  router: SimRouter,
  ctx: SimContext,
  parts: { auth: SimAuthServer; payments: SimPaymentPlatform; reachability: Reachability },
): void {
  // A platform outage as the terminal sees it (unreachable.ts). The answer leaves first; then the listeners close.
  router.add('PUT', '/sim/control/unreachable', 'control', (req) => {
    const seconds = (req.body as { seconds?: unknown } | undefined)?.seconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_UNREACHABLE_SECONDS) {
      throw new SimHttpError(
        400,
        'INVALID_UNREACHABLE',
        `seconds must be a whole number from 1 to ${MAX_UNREACHABLE_SECONDS}`,
      );
    }
    ctx.clock.setTimeout(() => parts.reachability.suspend(seconds), 100);
    return { status: 202, body: { unreachableSeconds: seconds } };
  });
  router.add('GET', '/sim/control/faults', 'control', () => ({
    status: 200,
    body: { faults: ctx.faults.list(), clockOffsetMs: ctx.faults.clockOffsetMs },
  }));
  router.add('PUT', '/sim/control/faults/:route', 'control', (req) => {
    const parsed = faultSpecSchema.safeParse(req.body ?? {});
    if (!parsed.success)
      throw new SimHttpError(400, 'INVALID_FAULT', parsed.error.issues[0]?.message ?? 'invalid fault');
    ctx.faults.set(req.params.route as string, parsed.data);
    return { status: 204 };
  });
  router.add('DELETE', '/sim/control/faults', 'control', () => {
    ctx.faults.clear();
    return { status: 204 };
  });
  router.add('DELETE', '/sim/control/faults/:route', 'control', (req) => {
    ctx.faults.clear(req.params.route);
    return { status: 204 };
  });
  router.add('PUT', '/sim/control/clock', 'control', (req) => {
    const offset = (req.body as { offsetMs?: unknown } | undefined)?.offsetMs;
    if (typeof offset !== 'number' || !Number.isFinite(offset))
      throw new SimHttpError(400, 'INVALID_CLOCK', 'offsetMs must be a number');
    ctx.faults.clockOffsetMs = offset;
    return { status: 204 };
  });
  router.add('GET', '/sim/control/profile', 'control', () => ({ status: 200, body: { profile: ctx.profile.name } }));
  router.add('PUT', '/sim/control/profile', 'control', (req) => {
    const profile = (req.body as { profile?: unknown } | undefined)?.profile;
    if (!isSimProfileName(profile))
      throw new SimHttpError(400, 'INVALID_PROFILE', `profile must be one of ${SIM_PROFILES.join(', ')}`);
    ctx.profile.set(profile);
    ctx.log.info({ profile }, 'demo platform profile switched');
    return { status: 204 };
  });
  parts.auth.registerControl(router);
  parts.payments.registerControl(router);
}
