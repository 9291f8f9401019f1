import { AgentError, ErrorCodes, onePage } from '../../../core/index.js';
import { apiOffline, apiOfflineItem } from '../api-views.js';
import { readJsonBody } from '../http-io.js';
import type { Router } from '../router.js';
import {
  DEFAULT_PAGE_LIMIT,
  emptyBodySchema,
  noQuerySchema,
  offlineQuerySchema,
  parseInput,
  queryObject,
  transactionIdSchema,
  OFFLINE_ITEM_STATES,
  type OfflineItemState,
  type ApiOfflineAnswer,
  type ApiOfflineFlushAnswer,
  type ApiOfflineItemAnswer,
} from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

/** Settled at the platform: listed only when asked for (they are in the transaction list as approved). */
const DEFAULT_STATES: readonly OfflineItemState[] = OFFLINE_ITEM_STATES.filter((s) => s !== 'uploaded');

function parseStates(text: string | undefined): readonly OfflineItemState[] {
  if (text === undefined) return DEFAULT_STATES;
  const states = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (states.length === 0)
    throw new AgentError(
      ErrorCodes.API_BAD_REQUEST,
      `state must name at least one of ${OFFLINE_ITEM_STATES.join(', ')}`,
    );
  for (const s of states) {
    if (!(OFFLINE_ITEM_STATES as readonly string[]).includes(s)) {
      throw new AgentError(
        ErrorCodes.API_BAD_REQUEST,
        `unknown queue state "${s.slice(0, 30)}": use ${OFFLINE_ITEM_STATES.join(', ')}`,
      );
    }
  }
  return states as OfflineItemState[];
}

function notRunning(): AgentError {
  return new AgentError(ErrorCodes.API_NOT_FOUND, 'the offline queue is not running on this terminal');
}

/**
 * The offline queue at the counter, which staff can see and force (docs/offline.md,
 * "Offline queue" and "Local API and counter page"): levels and items, send now, and
 * requeue of a sale needing attention.
 */
export function registerOfflineRoutes(router: Router, deps: RouteDeps): void {
  router.add('GET', '/api/v1/offline', async (ctx) => {
    const q = parseInput(offlineQuerySchema, queryObject(ctx.query), 'query');
    const states = parseStates(q.state);
    const source = deps.offline;
    if (source === undefined) return { status: 200, body: { offline: null, items: [] } satisfies ApiOfflineAnswer };
    const levels = apiOffline(await source.levels());
    const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
    // One item more than the page tells whether another page follows (docs/local-api.md, "Paging").
    const rows = source.items
      ? await source.items(states, { ...(q.after !== undefined ? { after: q.after } : {}), limit: limit + 1 })
      : [];
    const { items, next } = onePage(rows, limit, (i) => i.clientTransactionId);
    return {
      status: 200,
      body: {
        offline: levels,
        items: items.map(apiOfflineItem),
        ...(next !== undefined ? { next } : {}),
      } satisfies ApiOfflineAnswer,
    };
  });

  router.add('POST', '/api/v1/offline/flush', async (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    parseInput(emptyBodySchema, await readJsonBody(ctx.req), 'request body');
    if (!deps.offline) throw notRunning();
    return { status: 200, body: { result: await deps.offline.flush() } satisfies ApiOfflineFlushAnswer };
  });

  router.add('POST', '/api/v1/offline/:id/requeue', async (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    const id = ctx.params.id ?? '';
    if (!transactionIdSchema.safeParse(id).success) {
      throw new AgentError(
        ErrorCodes.API_BAD_REQUEST,
        'the offline sale id must be a transaction id (letters, digits, . _ : -)',
      );
    }
    parseInput(emptyBodySchema, await readJsonBody(ctx.req), 'request body');
    const source = deps.offline;
    if (source === undefined) throw notRunning();
    if (source.requeue === undefined)
      throw new AgentError(ErrorCodes.API_NOT_FOUND, "this terminal's offline queue cannot queue a sale again");
    const item = await source.requeue(id);
    deps.log.info(
      { clientTransactionId: item.clientTransactionId, state: item.state },
      'offline sale queued again at the counter',
    );
    return { status: 200, body: { item: apiOfflineItem(item) } satisfies ApiOfflineItemAnswer };
  });
}
