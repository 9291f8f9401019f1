import { Agent, DecoratorHandler, setGlobalDispatcher, type Dispatcher } from 'undici';
import { contractProblems } from './api-contract.js';

/**
 * The contract check for clients that use undici's global dispatcher (the CLI's
 * LocalApiClient, tests calling `request`): every answer from a loopback host is checked
 * against the OpenAPI document, and a mismatch fails the request (the CLI then reports
 * an error and its test fails). Installed once per test process by startApi().
 */
let installed = false;

type Handler = Dispatcher.DispatchHandler;

/**
 * Wraps the client's handler and collects the answer to check it before the client sees its
 * end. DecoratorHandler adapts undici's older handler API, which `request` still uses, to
 * the one interceptors speak (its types still describe the older one).
 */
function checking(client: Handler, method: string, path: string): Handler {
  const handler = new DecoratorHandler(client) as unknown as Required<
    Pick<Handler, 'onRequestStart' | 'onResponseStart' | 'onResponseData' | 'onResponseEnd' | 'onResponseError'>
  > &
    Handler;
  let status = 0;
  let contentType: string | undefined;
  const chunks: Buffer[] = [];
  return {
    onRequestStart: (controller, context) => handler.onRequestStart(controller, context),
    onRequestUpgrade: (controller, statusCode, headers, socket) =>
      handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart: (controller, statusCode, headers, statusMessage) => {
      status = statusCode;
      const type = headers['content-type'];
      contentType = Array.isArray(type) ? type[0] : type;
      return handler.onResponseStart(controller, statusCode, headers, statusMessage);
    },
    onResponseData: (controller, chunk) => {
      chunks.push(chunk);
      return handler.onResponseData(controller, chunk);
    },
    onResponseEnd: (controller, trailers) => {
      const pathname = new URL(path, 'http://127.0.0.1').pathname;
      const problems = contractProblems(method, pathname, status, contentType, Buffer.concat(chunks).toString('utf8'));
      if (problems.length > 0) {
        handler.onResponseError(
          controller,
          new Error(`the answer does not match docs/openapi.json:\n${problems.join('\n')}`),
        );
        return;
      }
      handler.onResponseEnd(controller, trailers);
    },
    onResponseError: (controller, err) => handler.onResponseError(controller, err),
  };
}

/**
 * The check as an undici interceptor, for a dispatcher of its own (the store-network
 * listener's register-client.ts): every answer through it is checked.
 */
export const contractInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) =>
  dispatch(opts, checking(handler, opts.method, opts.path));

export function installContractDispatcher(): void {
  if (installed) return;
  installed = true;
  // undici's own Agent: the global one may still be Node's built-in copy, which speaks the older handler API only.
  setGlobalDispatcher(
    new Agent().compose((dispatch) => (opts, handler) => {
      const origin = String(opts.origin ?? '');
      const loopback = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin);
      return dispatch(opts, loopback ? checking(handler, opts.method, opts.path) : handler);
    }),
  );
}
