import { packageVersion } from '../../../config/index.js';
import { openApiDocument } from '../../openapi/index.js';
import type { Router } from '../router.js';
import { noQuerySchema, parseInput, queryObject } from '../../shared/index.js';

/**
 * GET /api/v1/openapi.json: the document of this API (docs/local-api.md, "The document"),
 * built once at start from the same schemas the routes validate with.
 */
export function registerOpenApiRoute(router: Router): void {
  let document: Record<string, unknown> | undefined;
  router.add('GET', '/api/v1/openapi.json', (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    document ??= openApiDocument(packageVersion());
    return { status: 200, body: document };
  });
}
