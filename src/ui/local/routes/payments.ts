import { AgentError, ErrorCodes, onePage } from '../../../core/index.js';
import { type SaleRequest, parseAmount, normalizeCurrency } from '../../../payments/index.js';
import { readJsonBody } from '../http-io.js';
import type { RouteContext, Router } from '../router.js';
import {
  cancelBodySchema,
  captureAllBodySchema,
  captureBodySchema,
  DEFAULT_PAGE_LIMIT,
  emptyBodySchema,
  getQuerySchema,
  listQuerySchema,
  noQuerySchema,
  parseInput,
  queryObject,
  refundBodySchema,
  refundByWebBodySchema,
  saleBodySchema,
  transactionIdSchema,
  type SaleBody,
  type ApiAllowedOperationsAnswer,
  type ApiTransactionAnswer,
  type ApiTransactionListAnswer,
} from '../../shared/index.js';
import { apiAllowedOperations, apiTransaction } from '../api-views.js';
import type { RouteDeps } from './deps.js';
import { checkRefundByWebOfOwnSale } from '../permissions.js';

function rule(message: string): AgentError {
  return new AgentError(ErrorCodes.API_BAD_REQUEST, message);
}

function idParam(ctx: RouteContext): string {
  const result = transactionIdSchema.safeParse(ctx.params.id);
  if (!result.success) throw rule(`transaction id ${result.error.issues[0]?.message ?? 'is invalid'}`);
  return result.data;
}

function noQuery(ctx: RouteContext): void {
  // Most requests have no query: nothing to check (the schema allows no key at all).
  if (ctx.query.size === 0) return;
  parseInput(noQuerySchema, queryObject(ctx.query), 'query');
}

/** Fields that only make sense with some methods are refused elsewhere, not ignored. */
export function toSaleRequest(body: SaleBody, defaultCurrency: string): SaleRequest {
  const wallet = body.method === 'walletA' || body.method === 'walletB';
  if (!wallet && body.scenario !== undefined)
    throw rule(`scenario applies to walletA and walletB only, not to ${body.method}`);
  const scenario = wallet ? (body.scenario ?? 'ConsumerScan') : undefined;
  if (body.walletId !== undefined && scenario !== 'MerchantScan')
    throw rule('walletId applies to wallet merchant-scan sales only (scenario MerchantScan)');
  if (body.moto !== undefined && body.method !== 'moto') throw rule('moto details apply to method moto only');
  const currency = normalizeCurrency(body.currency ?? defaultCurrency);
  const amount = parseAmount(body.amount, currency);
  return {
    method: body.method,
    amount,
    currency,
    ...(scenario !== undefined ? { scenario } : {}),
    ...(body.merchantId !== undefined ? { merchantId: body.merchantId } : {}),
    ...(body.moto !== undefined ? { moto: body.moto } : {}),
    ...(body.walletId !== undefined ? { walletId: body.walletId } : {}),
    // The engine refuses via/order outside a wallet merchant scan (sale-request.ts).
    ...(body.via !== undefined ? { via: body.via } : {}),
    ...(body.order !== undefined ? { order: body.order } : {}),
    ...(body.reference !== undefined ? { reference: body.reference } : {}),
  };
}

export function registerPaymentRoutes(router: Router, deps: RouteDeps): void {
  const { payments, log } = deps;

  router.add('POST', '/api/v1/sales', async (ctx) => {
    noQuery(ctx);
    const body = parseInput(saleBodySchema, await readJsonBody(ctx.req), 'request body');
    const req = toSaleRequest(body, deps.config.payments.defaultCurrency);
    const t0 = deps.clock.mono();
    const started = await payments.startSale(req);
    // The outcome reaches the page through the bus; a rejection here must not go unhandled.
    started.done.then(
      (view) => deps.metrics.saleSettled(view.state, req.method, (deps.clock.mono() - t0) / 1000),
      (err: unknown) => {
        deps.metrics.saleSettled('error', req.method, (deps.clock.mono() - t0) / 1000);
        log.error({ clientTransactionId: started.clientTransactionId, err }, 'sale ended with an error');
      },
    );
    const view = await payments.get(started.clientTransactionId);
    return {
      status: 202,
      body: { transaction: apiTransaction(view, { withEvents: false }) } satisfies ApiTransactionAnswer,
    };
  });

  router.add('POST', '/api/v1/sales/:id/abort', async (ctx) => {
    noQuery(ctx);
    parseInput(emptyBodySchema, await readJsonBody(ctx.req), 'request body');
    const view = await payments.abortSale(idParam(ctx));
    return {
      status: 200,
      body: { transaction: apiTransaction(view, { withEvents: false }) } satisfies ApiTransactionAnswer,
    };
  });

  router.add('GET', '/api/v1/transactions', (ctx) => {
    const q = parseInput(listQuerySchema, queryObject(ctx.query), 'query');
    const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
    // One row more than the page tells whether another page follows (docs/local-api.md, "Paging").
    const rows = payments.list({
      ...(q.date !== undefined ? { date: q.date } : {}),
      ...(q.reference !== undefined ? { reference: q.reference } : {}),
      ...(q.after !== undefined ? { after: q.after } : {}),
      limit: limit + 1,
    });
    const { items, next } = onePage(rows, limit, (v) => v.clientTransactionId);
    return {
      status: 200,
      body: {
        transactions: items.map((v) => apiTransaction(v, { withEvents: false })),
        ...(next !== undefined ? { next } : {}),
      } satisfies ApiTransactionListAnswer,
    };
  });

  router.add('GET', '/api/v1/transactions/:id', async (ctx) => {
    const q = parseInput(getQuerySchema, queryObject(ctx.query), 'query');
    const refresh = q.refresh === '1' || q.refresh === 'true';
    const view = await payments.get(idParam(ctx), {
      refresh,
      ...(q.merchantId !== undefined ? { merchantId: q.merchantId } : {}),
    });
    return {
      status: 200,
      body: { transaction: apiTransaction(view, { withEvents: true }) } satisfies ApiTransactionAnswer,
    };
  });

  router.add('GET', '/api/v1/transactions/:id/allowed-operations', async (ctx) => {
    noQuery(ctx);
    const ops = await payments.allowedOperations(idParam(ctx));
    return { status: 200, body: { allowedOperations: apiAllowedOperations(ops) } satisfies ApiAllowedOperationsAnswer };
  });

  /** Amount text in the sale's currency (cancel, refund, capture act on a sale). */
  async function amountFor(id: string, text: string | undefined, merchantId?: string): Promise<number | undefined> {
    if (text === undefined) return undefined;
    const sale = await payments.get(id, merchantId !== undefined ? { merchantId } : {});
    return parseAmount(text, sale.currency);
  }

  /** Whether the journal holds `id` as a sale made at this terminal (not a web shop's order journaled for its refund by web). */
  async function isOwnSale(id: string): Promise<boolean> {
    const view = await payments.get(id, { journalOnly: true }).catch((err: unknown) => {
      if (err instanceof AgentError && err.code === ErrorCodes.PAYMENT_NOT_FOUND) return undefined;
      throw err;
    });
    return view !== undefined && view.kind === 'sale' && view.origin !== 'web';
  }

  router.add('POST', '/api/v1/transactions/:id/cancel', async (ctx) => {
    noQuery(ctx);
    const id = idParam(ctx);
    const body = parseInput(cancelBodySchema, await readJsonBody(ctx.req), 'request body');
    const amount = await amountFor(id, body.amount);
    const view = await payments.cancel(id, {
      ...(amount !== undefined ? { amount } : {}),
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
      ...(body.approvalCode !== undefined ? { approvalCode: body.approvalCode } : {}),
    });
    return {
      status: 200,
      body: { transaction: apiTransaction(view, { withEvents: false }) } satisfies ApiTransactionAnswer,
    };
  });

  router.add('POST', '/api/v1/transactions/:id/refund', async (ctx) => {
    noQuery(ctx);
    const id = idParam(ctx);
    const body = parseInput(refundBodySchema, await readJsonBody(ctx.req), 'request body');
    const amount = await amountFor(id, body.amount);
    const view = await payments.refund(id, {
      ...(amount !== undefined ? { amount } : {}),
      ...(body.approvalCode !== undefined ? { approvalCode: body.approvalCode } : {}),
    });
    return {
      status: 200,
      body: { transaction: apiTransaction(view, { withEvents: false }) } satisfies ApiTransactionAnswer,
    };
  });

  // Cancel or refund by web (docs/platform-contract.md, "Endpoints"): the platform picks which; the answer is the operation's row.
  router.add('POST', '/api/v1/transactions/:id/refund-by-web', async (ctx) => {
    noQuery(ctx);
    const id = idParam(ctx);
    const body = parseInput(refundByWebBodySchema, await readJsonBody(ctx.req), 'request body');
    // A sale made at this terminal needs the clerk's refund-by-web permission too (permissions.ts); a web shop's order does not.
    if (await isOwnSale(id)) checkRefundByWebOfOwnSale(ctx.caller, deps.config);
    // merchantId: whose token looks up a web order the journal does not hold, and gives it back; an unknown merchant is refused (AUTH_NO_MERCHANT).
    const merchant = body.merchantId !== undefined ? { merchantId: body.merchantId } : {};
    const amount = await amountFor(id, body.amount, body.merchantId);
    const view = await payments.refundByWeb(id, { ...(amount !== undefined ? { amount } : {}), ...merchant });
    return {
      status: 200,
      body: { transaction: apiTransaction(view, { withEvents: false }) } satisfies ApiTransactionAnswer,
    };
  });

  router.add('POST', '/api/v1/transactions/:id/capture', async (ctx) => {
    noQuery(ctx);
    const id = idParam(ctx);
    const body = parseInput(captureBodySchema, await readJsonBody(ctx.req), 'request body');
    const amount = await amountFor(id, body.amount);
    const view = await payments.capture(id, amount !== undefined ? { amount } : {});
    return {
      status: 200,
      body: { transaction: apiTransaction(view, { withEvents: false }) } satisfies ApiTransactionAnswer,
    };
  });

  router.add('POST', '/api/v1/capture-all', async (ctx) => {
    noQuery(ctx);
    const body = parseInput(captureAllBodySchema, await readJsonBody(ctx.req), 'request body');
    const views = await payments.captureAll(body.merchantId);
    return {
      status: 200,
      body: {
        transactions: views.map((v) => apiTransaction(v, { withEvents: false })),
      } satisfies ApiTransactionListAnswer,
    };
  });
}
