import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SimHttpError } from '../router.js';
import { amountSchema } from './money.js';
import { processSale } from './process.js';
import type { PaymentDeps } from './transaction.js';
import type { Caller, TransactionRecord } from './types.js';

/** `POST /sim/control/web-orders` body: what a web shop's customer paid, and for which merchant (default: the first seeded). */
export const webOrderSchema = z.strictObject({
  amount: amountSchema,
  merchantId: z.string().min(1).optional(),
  clientTransactionId: z.string().min(1).max(64).optional(),
});
export type WebOrder = z.infer<typeof webOrderSchema>;

/**
 * A web shop's order: a keyed card payment the merchant took online, not from any terminal
 * (docs/demo-platform.md, "Demo platform", control routes). It is made through the same
 * process path as a terminal's sale (rules, capture mode, ledger, profile), with the web
 * shop as its source and a client id the shop chose, so a terminal knows it only by its ids.
 */
export function webOrder(deps: PaymentDeps, order: WebOrder): TransactionRecord {
  const { seed } = deps.ctx;
  const merchant =
    order.merchantId === undefined
      ? seed.merchants[0]
      : seed.merchants.find((m) => m.merchantId === order.merchantId || m.clientId === order.merchantId);
  if (merchant === undefined) throw new SimHttpError(404, 'MERCHANT_UNKNOWN', `no merchant ${order.merchantId ?? ''}`);
  const aggregator = seed.aggregators.find((a) => a.merchantAggregatorId === merchant.merchantAggregatorId);
  const caller: Caller = {
    merchant,
    tenantId: aggregator?.tenantId ?? seed.tenants[0]?.tenantId ?? '',
    approvalCode: aggregator?.approvalCode ?? null,
    source: { sourceType: 'instore', storeId: 'web-shop', logicalDeviceId: 'web-shop', physicalDeviceId: 'web-shop' },
  };
  return processSale(deps, caller, {
    clientDateTime: new Date(deps.ctx.now()).toISOString(),
    channel: 'ecommerce',
    clientNewTransactionId: order.clientTransactionId ?? `web-${randomUUID()}`,
    authorizationAmount: order.amount,
    entryMode: 'Keyed',
    instrument: {
      instrumentType: 'card',
      email: 'customer@example.com',
      card: { maskedPan: '411111******1111', scheme: 'VISA', expiry: '12/30' },
    },
  });
}
