import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentError, ErrorCodes } from '../../core/index.js';
import type { Caller } from './caller.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Who is calling (caller.ts); a route whose permission depends on what it acts on checks it itself. */
  caller?: Caller;
}

/** A JSON answer; handlers that stream (SSE) or send other types write `res` and return undefined. */
export interface JsonResult {
  status: number;
  body: unknown;
  /** The answer repeats the first request with the same Idempotency-Key (idempotency.ts). */
  replayed?: boolean;
}

export type RouteHandler = (ctx: RouteContext) => Promise<JsonResult | undefined> | JsonResult | undefined;

interface Route {
  method: string;
  /** As registered, e.g. `/api/v1/transactions/:id/cancel`. */
  path: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler;
}

export interface RouteMatch {
  handler: RouteHandler;
  params: Record<string, string>;
  /** The route as registered, e.g. `/api/v1/transactions/:id/cancel` (logs name it, not the id). */
  path: string;
}

/** A small method + path router: `/api/v1/transactions/:id/cancel`, `/api/v1/qr/:id.svg`. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, path: string, handler: RouteHandler): this {
    const names: string[] = [];
    const source = path
      .split(/(:[A-Za-z]+)/)
      .map((part) => {
        if (part.startsWith(':')) {
          names.push(part.slice(1));
          return '([^/]+?)';
        }
        return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('');
    this.routes.push({ method, path, pattern: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  /** Every route's method and path as registered (the OpenAPI document is checked against them). */
  list(): Array<{ method: string; path: string }> {
    return this.routes.map((r) => ({ method: r.method, path: r.path }));
  }

  /** The handler for the request, or an AgentError: API_NOT_FOUND for no such path, API_METHOD_NOT_ALLOWED for a wrong method. */
  match(method: string, pathname: string): RouteMatch {
    let pathKnown = false;
    for (const route of this.routes) {
      const m = route.pattern.exec(pathname);
      if (m === null) continue;
      pathKnown = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(m[i + 1] ?? '');
        } catch {
          throw new AgentError(ErrorCodes.API_BAD_REQUEST, `malformed ${name} in the path`);
        }
      });
      return { handler: route.handler, params, path: route.path };
    }
    if (pathKnown) throw new AgentError(ErrorCodes.API_METHOD_NOT_ALLOWED, `${method} is not supported on ${pathname}`);
    throw new AgentError(ErrorCodes.API_NOT_FOUND, `no such endpoint: ${pathname}`);
  }
}
