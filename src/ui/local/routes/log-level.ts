import { requestContext, type LogLevelControl } from '../../../core/index.js';
import type { AuditEntry } from '../../../payments/index.js';
import { readJsonBody } from '../http-io.js';
import type { Router } from '../router.js';
import {
  logLevelBodySchema,
  noQuerySchema,
  parseInput,
  queryObject,
  type ApiLogLevelAnswer,
} from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

/**
 * GET and PUT /api/v1/log-level (per-install token, or a clerk holding api.permissions.logLevel): the level
 * changes at once for every component, without a restart, and is not kept: the next
 * start uses log.level again (docs/operations.md, "Log level").
 */
/** Levels that hide warnings (or everything): a change to one is written to the journal's audit rows first. */
const HIDING: ReadonlySet<string> = new Set(['error', 'fatal', 'silent']);

export function registerLogLevelRoutes(
  router: Router,
  deps: Pick<RouteDeps, 'log'> & { logLevel: LogLevelControl; audit?: (entry: AuditEntry) => void },
): void {
  router.add('GET', '/api/v1/log-level', (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    return { status: 200, body: { level: deps.logLevel.get() } satisfies ApiLogLevelAnswer };
  });
  router.add('PUT', '/api/v1/log-level', async (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    const { level } = parseInput(logLevelBodySchema, await readJsonBody(ctx.req), 'request body');
    const previous = deps.logLevel.get();
    const by = ctx.caller?.staff?.username ?? ctx.caller?.operator ?? 'local-api';
    // On record before it takes effect: an audit row (which outlasts the silenced logs; an
    // unwritable journal refuses the change) and a warn line.
    if (HIDING.has(level)) {
      const requestId = requestContext()?.requestId;
      deps.audit?.({
        action: 'log-level',
        by,
        detail: `${previous} -> ${level}`,
        ...(requestId !== undefined ? { requestId } : {}),
      });
    }
    deps.log.warn({ logLevel: level, previousLogLevel: previous, by }, 'log level changed through the local API');
    deps.logLevel.set(level);
    return { status: 200, body: { level, previous } satisfies ApiLogLevelAnswer };
  });
}
