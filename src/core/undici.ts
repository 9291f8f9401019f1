import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';

/**
 * The two pieces of undici the agent uses, an Agent dispatcher and `request`, loaded from
 * undici's own files when first needed instead of through its index: the index loads all
 * of undici (fetch, WebSocket, caches, cookies, mocks, proxies) and, through its cookie
 * module's look at `globalThis.Headers`, node's own bundled copy of undici as well (about
 * 8 MiB of RSS more than these parts), none of which the agent uses (docs/performance.md,
 * "Memory"). The files are those
 * the index itself requires, so the objects are the same; the undici version is pinned by
 * the lockfile and the platform and local API client tests run through this module.
 */
interface UndiciParts {
  Agent: typeof Agent;
  requestApi: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  getGlobalDispatcher: () => Dispatcher;
}

let parts: UndiciParts | undefined;

function undici(): UndiciParts {
  if (parts === undefined) {
    const load = createRequire(import.meta.url);
    parts = {
      Agent: load('undici/lib/dispatcher/agent.js') as typeof Agent,
      requestApi: load('undici/lib/api/api-request.js') as UndiciParts['requestApi'],
      getGlobalDispatcher: (load('undici/lib/global.js') as { getGlobalDispatcher: () => Dispatcher })
        .getGlobalDispatcher,
    };
  }
  return parts;
}

/** `new Agent(options)` of undici. */
export function undiciAgent(options: Agent.Options): Agent {
  return new (undici().Agent)(options);
}

/** Options of undici's `request`, less the origin and path (taken from the URL). */
export type UndiciRequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher?: Dispatcher };

/**
 * undici's `request(url, options)`, as its index defines it: the URL's origin, path and
 * query sent through `options.dispatcher` (undici's global one when absent).
 */
export function undiciRequest(url: string, options: UndiciRequestOptions): Promise<Dispatcher.ResponseData> {
  const parsed = new URL(url);
  const { dispatcher, ...rest } = options;
  const { requestApi, getGlobalDispatcher } = undici();
  return requestApi.call(dispatcher ?? getGlobalDispatcher(), {
    ...rest,
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
  });
}
