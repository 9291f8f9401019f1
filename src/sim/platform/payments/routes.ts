import type { SimRouter, SimRequest, SimResponse } from '../router.js';
import type { SimContext } from '../context.js';
import { allowedOperations } from './allowed-operations.js';
import { callerOf } from './caller.js';
import { cancelTransaction } from './cancel.js';
import { captureAll, captureTransaction } from './capture.js';
import { COUNTRIES } from './countries.js';
import { parseBody, validationError } from './http-errors.js';
import { processSale, qrCodePayment } from './process.js';
import { refundTransaction } from './refund.js';
import { refundByWeb } from './refund-by-web.js';
import { bodySchemasFor, operationQuerySchema, type BodyOf, type BodySchemas } from './schemas.js';
import { strictAnswer } from './strict-answers.js';
import { lookup, snapshot, type PaymentDeps } from './transaction.js';
import type { Caller, TransactionRecord } from './types.js';

type Handler = (caller: Caller, req: SimRequest) => unknown;

/** What a field engineer running the demo platform sees per call: ids and status, never card data. */
function summary(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || !('serverTransactionId' in body)) return undefined;
  const r = body as TransactionRecord;
  return {
    type: r.transactionType,
    serverTransactionId: r.serverTransactionId,
    clientTransactionId: r.clientTransactionId,
    status: r.transactionStatus,
  };
}

/**
 * The payment API and reference data (docs/platform-contract.md, "Endpoints"). Every call
 * checks the Bearer token first (docs/platform-contract.md, "Endpoints"), then the body. The route
 * names are the fault-injection keys.
 */
export function registerPaymentRoutes(router: SimRouter, ctx: SimContext, deps: PaymentDeps): void {
  const log = ctx.log.child({ component: 'payment-api' });
  const add = (method: string, path: string, name: string, handler: Handler): void => {
    // Terminals reach the payment API with their certificate; it answers on the device
    // mTLS listener too (terminal calls go over mutual TLS: docs/platform-contract.md, "Hosts and TLS").
    router.add(
      method,
      path,
      name,
      (req): SimResponse => {
        const caller = callerOf(ctx, req);
        // No payment route of the contract takes a query: strict refuses one (docs/demo-platform.md, "Demo platform").
        const query = [...req.query.keys()];
        if (ctx.profile.strict && query.length > 0) throw validationError(`unknown query parameter ${query[0] ?? ''}`);
        const body = handler(caller, req);
        if (method === 'POST')
          log.info({ route: name, merchantId: caller.merchant.merchantId, ...summary(body) }, 'payment call');
        // The strict profile writes every answer from the contract's extremes (docs/demo-platform.md, "Demo platform").
        return { status: 200, body: ctx.profile.strict ? strictAnswer(body, ctx.profile.timeZone) : body };
      },
      ['api', 'mtls'],
    );
  };
  const id = (req: SimRequest): string => req.params.id as string;
  const base = '/payment/v1/transactions';
  /** The request body checked against the profile's schemas (strict: a field outside the contract is a 400). */
  const body = <K extends keyof BodySchemas>(name: K, req: SimRequest): BodyOf<K> =>
    parseBody(bodySchemasFor(ctx.profile)[name], req.body) as BodyOf<K>;

  add('POST', `${base}/process`, 'process', (caller, req) => processSale(deps, caller, body('process', req)));
  add('POST', `${base}/captureall`, 'captureall', (caller, req) =>
    captureAll(deps, caller, body('captureAll', req).clientDateTime),
  );
  // 200 means available (docs/platform-contract.md, "Decisions where the spec is silent").
  add('GET', `${base}/technical/isAvailable`, 'isAvailable', () => ({ available: true }));
  add('POST', `${base}/:id/capture`, 'capture', (caller, req) =>
    captureTransaction(deps, caller, id(req), body('capture', req)),
  );
  add('POST', `${base}/:id/refund`, 'refund', (caller, req) =>
    refundTransaction(deps, caller, id(req), body('refund', req)),
  );
  add('POST', `${base}/:id/cancel`, 'cancel', (caller, req) =>
    cancelTransaction(deps, caller, id(req), body('cancel', req)),
  );
  add('GET', `${base}/:id/allowedoperations`, 'allowedoperations', (caller, req) => {
    // `?operation=` is not in the contract; standard still answers it (strict refused it above).
    const op = req.query.get('operation');
    return allowedOperations(
      deps,
      caller,
      id(req),
      op === null ? undefined : parseBody(operationQuerySchema, op),
      ctx.profile.strict,
    );
  });
  add('POST', `${base}/:id/refundbyweb`, 'refundbyweb', (caller, req) =>
    refundByWeb(deps, caller, id(req), body('refundByWeb', req)),
  );
  add('GET', `${base}/:id`, 'status', (caller, req) => snapshot(lookup(deps, caller, id(req), { read: true })));
  add('POST', '/qrcode-payment/v1/transactions', 'qrcode', (caller, req) =>
    qrCodePayment(deps, caller, body('qrCode', req)),
  );
  add('GET', '/resources/v1/countries', 'countries', () => COUNTRIES.map((c) => ({ ...c })));
}
