import { z } from 'zod';
import { SimHttpError, type SimRouter } from '../router.js';
import { snapshot, type PaymentDeps } from './transaction.js';
import type { WalletAction } from './wallet-provider.js';
import type { TransactionRecord } from './types.js';
import { webOrder, webOrderSchema } from './web-order.js';

const failuresSchema = z.strictObject({ count: z.number().int().min(0) });
const walletActionSchema = z.enum(['pay', 'fail', 'expire']);

/** The wallet provider's control: the consumer pays, the wallet refuses, the QR code expires. */
export function controlWallet(deps: PaymentDeps, id: string, action: WalletAction): TransactionRecord {
  const tx = deps.store.findAny(id);
  if (tx === undefined) throw new SimHttpError(404, 'TRANSACTION_NOT_FOUND', `no transaction ${id}`);
  deps.wallets.control(tx, action);
  return snapshot(tx);
}

/** /sim/control routes of the payment platform: wallet outcomes and the ledger. */
export function registerPaymentControl(router: SimRouter, deps: PaymentDeps): void {
  router.add('POST', '/sim/control/wallet/:id/:action', 'control', (req) => {
    const action = walletActionSchema.safeParse(req.params.action);
    if (!action.success) throw new SimHttpError(404, 'NOT_FOUND', 'wallet control actions are pay, fail and expire');
    return { status: 200, body: controlWallet(deps, req.params.id as string, action.data) };
  });
  // A refund or cancel the strict profile answered pending completes now.
  router.add('POST', '/sim/control/transactions/:id/complete', 'control', (req) => {
    const tx = deps.store.findAny(req.params.id as string);
    if (tx === undefined)
      throw new SimHttpError(404, 'TRANSACTION_NOT_FOUND', `no transaction ${req.params.id as string}`);
    const completed = deps.completions.complete(tx);
    return { status: 200, body: { completed, transaction: snapshot(tx) } };
  });
  // The next refunds or cancels answered pending (strict profile) fail asynchronously: body {count}.
  router.add('PUT', '/sim/control/operation-failures', 'control', (req) => {
    const body = failuresSchema.safeParse(req.body);
    if (!body.success) throw new SimHttpError(400, 'INVALID_FAILURES', 'body: {"count": <a whole number, 0 or more>}');
    deps.completions.failNext(body.data.count);
    return { status: 200, body: { count: body.data.count } };
  });
  // A web shop's order: a payment no terminal made (e.g. to refund it by web from one).
  router.add('POST', '/sim/control/web-orders', 'control', (req) => {
    const order = webOrderSchema.safeParse(req.body);
    if (!order.success)
      throw new SimHttpError(
        400,
        'INVALID_WEB_ORDER',
        order.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
      );
    return { status: 201, body: webOrder(deps, order.data) };
  });
  router.add('GET', '/sim/control/ledger', 'control', () => {
    deps.wallets.settleAll();
    deps.completions.settleAll();
    return { status: 200, body: { entries: deps.ledger.list(), totals: deps.ledger.totals() } };
  });
}
