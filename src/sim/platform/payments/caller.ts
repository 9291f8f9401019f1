import { SimHttpError, type SimRequest } from '../router.js';
import type { SimContext } from '../context.js';
import type { SeedTerminal } from '../seed.js';
import type { Caller } from './types.js';

/**
 * Checks the Bearer token (every payment call carries one: docs/platform-contract.md,
 * "Endpoints"; the
 * verifier checks expiry and the cnf binding on mTLS) and finds the merchant
 * (`entityId`) and the terminal (`physical_device_id` = serial, `device_id` = logical id).
 * A merchant token without device claims, and a custom-token device that names no seeded
 * terminal, act from the merchant's first seeded terminal.
 */
export function callerOf(ctx: SimContext, req: SimRequest): Caller {
  const claims = ctx.tokens.verifyBearer(req.headers.authorization, req.clientThumbprint);
  const merchantId = claims.entityId;
  const merchant = ctx.seed.merchants.find((m) => m.merchantId === merchantId);
  if (merchant === undefined)
    throw new SimHttpError(403, 'MERCHANT_UNKNOWN', 'the token does not name a known merchant (entityId)');
  const aggregator = ctx.seed.aggregators.find((a) => a.merchantAggregatorId === merchant.merchantAggregatorId);

  const serial = typeof claims.physical_device_id === 'string' ? claims.physical_device_id : undefined;
  const logical = typeof claims.device_id === 'string' && claims.device_id !== 'unknown' ? claims.device_id : undefined;
  let terminal: SeedTerminal | undefined;
  if (serial !== undefined) terminal = ctx.seed.terminals.find((t) => t.serialNumber === serial);
  else if (logical !== undefined) {
    // A device the custom-token call named without a physical terminal (demo only: a
    // developer's machine) acts from the merchant's first seeded terminal, as a merchant token does.
    terminal =
      ctx.seed.terminals.find((t) => t.logicalDeviceId === logical) ??
      (claims.method !== undefined
        ? ctx.seed.terminals.find((t) => t.merchantIds.includes(merchant.merchantId))
        : undefined);
  } else terminal = ctx.seed.terminals.find((t) => t.merchantIds.includes(merchant.merchantId));
  if (terminal === undefined || !terminal.merchantIds.includes(merchant.merchantId)) {
    throw new SimHttpError(403, 'TERMINAL_UNKNOWN', 'the token names no terminal registered for this merchant');
  }
  return {
    merchant,
    tenantId: aggregator?.tenantId ?? ctx.seed.tenants[0]?.tenantId ?? '',
    approvalCode: aggregator?.approvalCode ?? null,
    source: {
      sourceType: 'instore',
      storeId: terminal.storeId,
      logicalDeviceId: terminal.logicalDeviceId,
      physicalDeviceId: terminal.serialNumber,
    },
  };
}
