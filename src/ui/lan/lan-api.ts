import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentError, ErrorCodes, requestIdFrom, withRequestContext, type Logger } from '../../core/index.js';
import {
  REQUEST_ID_HEADER,
  noQuerySchema,
  pairingBodySchema,
  parseInput,
  queryObject,
  type ApiPairingAnswer,
} from '../shared/index.js';
import type { PaymentsApi } from '../../payments/index.js';
import {
  answerClientError,
  answerError,
  closeServer,
  createApiDispatch,
  readJsonBody,
  sendJson,
  type Idempotency,
  type RouteDeps,
  type Router,
} from '../local/index.js';
import { CallerNumbering } from './caller-numbering.js';
import { limitConnections } from './connection-limits.js';
import type { PairingDesk } from './pairing.js';
import type { RegisterStore, RegisterView } from './register-store.js';
import { RegisterPayments, registerOperator } from './scoped-payments.js';
import type { ServerCertificate } from './server-certificate.js';

export interface LanApiOptions {
  /** What the loopback routes are given; `payments` is narrowed to each register's own. */
  deps: RouteDeps;
  registers: RegisterStore;
  pairing: PairingDesk;
  certificate: ServerCertificate;
  log: Logger;
  /**
   * A register's routes over its own payments (the loopback payment routes, and receipts
   * when the agent keeps them), built by the composition root for each register on its
   * first request; the event stream is added here.
   */
  routes: (payments: PaymentsApi) => Router;
  /** The local API's Idempotency-Keys; each register has its own scope (`register:<id>`). */
  idempotency: Idempotency;
}

export interface LanApi {
  start(): Promise<{ url: string; fingerprint: string }>;
  stop(): Promise<void>;
  /** Ends the event streams of a register that was just revoked. */
  disconnect(registerId: string): void;
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m?.[1];
}

/**
 * The store-network listener (docs/registers.md, "Registers on the store network"): TLS
 * with the terminal's own certificate, pairing with a one-time code, then only the
 * payment routes and the event stream, each narrowed to the register's own
 * transactions. The page, the per-install token, configuration and everything else stay
 * on loopback.
 */
export function createLanApi(opts: LanApiOptions): LanApi {
  const { deps, registers, pairing, certificate } = opts;
  const log = opts.log.child({ module: 'lan-api' });
  const routers = new Map<string, { dispatch: ReturnType<typeof createApiDispatch>; payments: RegisterPayments }>();
  const streams = new Map<string, Set<ServerResponse>>();
  let server: Server | undefined;

  function routerFor(register: RegisterView): {
    dispatch: ReturnType<typeof createApiDispatch>;
    payments: RegisterPayments;
  } {
    const known = routers.get(register.id);
    if (known !== undefined) return known;
    const payments = new RegisterPayments(deps.payments, register.id);
    // Its events numbered 1, 2, 3, ... for the run: ids tell nothing of the other registers' traffic.
    const numbering = new CallerNumbering();
    const router = opts.routes(payments);
    router.add('GET', '/api/v1/events', (ctx) => {
      parseInput(noQuerySchema, queryObject(ctx.query), 'query');
      const last = ctx.req.headers['last-event-id'];
      const set = streams.get(register.id) ?? new Set<ServerResponse>();
      streams.set(register.id, set);
      set.add(ctx.res);
      ctx.res.once('close', () => set.delete(ctx.res));
      deps.sse.connect(ctx.res, Array.isArray(last) ? last[0] : last, (event) => payments.admits(event), numbering);
      return undefined;
    });
    const entry = { dispatch: createApiDispatch({ router, idempotency: opts.idempotency }), payments };
    routers.set(register.id, entry);
    return entry;
  }

  function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // As on loopback: every answer names its request id, and so do the lines and rows it causes.
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    return withRequestContext({ requestId }, () => serve(req, res));
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'https://terminal');
      // A register is a program, never a web page: nothing here is for browsers.
      if (req.headers.origin !== undefined)
        throw new AgentError(
          ErrorCodes.API_FORBIDDEN_ORIGIN,
          'requests from web pages are refused on the store network',
        );
      const method = req.method ?? 'GET';
      if (url.pathname === '/api/v1/pairing') {
        if (method !== 'POST')
          throw new AgentError(ErrorCodes.API_METHOD_NOT_ALLOWED, `${method} is not supported on ${url.pathname}`);
        parseInput(noQuerySchema, queryObject(url.searchParams), 'query');
        const body = parseInput(pairingBodySchema, await readJsonBody(req, 1_024), 'request body');
        const paired = pairing.redeem(body.code, body.name, req.socket.remoteAddress ?? 'unknown');
        log.info({ registerId: paired.register.id, name: paired.register.name }, 'register paired');
        sendJson(res, 201, { ...paired, fingerprint: certificate.fingerprint } satisfies ApiPairingAnswer);
        return;
      }
      const key = bearer(req);
      const register = key === undefined ? undefined : registers.authenticate(key);
      if (register === undefined) {
        throw new AgentError(
          ErrorCodes.API_UNAUTHORIZED,
          key === undefined
            ? 'send Authorization: Bearer with the API key this register got when it paired'
            : 'unknown or revoked register key: pair the register again',
        );
      }
      const { dispatch, payments } = routerFor(register);
      // Every route naming a transaction first checks it is the register's own (404 otherwise,
      // as for an id that does not exist), whatever the route does after.
      const named = /^\/api\/v1\/(?:transactions|sales)\/([^/]+)/.exec(url.pathname)?.[1];
      if (named !== undefined) {
        let id: string;
        try {
          id = decodeURIComponent(named);
        } catch {
          throw new AgentError(ErrorCodes.API_BAD_REQUEST, 'malformed id in the path');
        }
        await payments.get(id);
      }
      const operator = registerOperator(register.id);
      await dispatch(req, res, url, { operator, scope: operator });
    } catch (err) {
      answerError(err, req, res, log);
    }
  }

  async function stop(): Promise<void> {
    const srv = server;
    server = undefined;
    if (srv === undefined) return;
    await closeServer(srv);
  }

  return {
    stop,
    disconnect(registerId) {
      for (const res of streams.get(registerId) ?? []) res.destroy();
      streams.delete(registerId);
      routers.delete(registerId);
    },
    async start() {
      const { config } = deps;
      const lan = config.api.lan;
      const srv = createServer(
        {
          key: certificate.keyPem,
          cert: certificate.certPem,
          minVersion: 'TLSv1.2',
          // A peer that connects and never finishes TLS holds a socket for nothing (node's default waits 120 s).
          handshakeTimeout: lan.handshakeSeconds * 1000,
          requestTimeout: 30_000,
          headersTimeout: 10_000,
        },
        (req, res) => {
          void handle(req, res);
        },
      );
      srv.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket));
      limitConnections(srv, { perPeer: lan.maxConnectionsPerPeer, total: lan.maxConnections }, log);
      srv.on('tlsClientError', (err: NodeJS.ErrnoException, socket) =>
        log.debug(
          { peer: socket.remoteAddress, code: err.code },
          'store-network connection closed before TLS was set up',
        ),
      );
      await new Promise<void>((resolve, reject) => {
        srv.once('error', (err: NodeJS.ErrnoException) =>
          reject(
            new AgentError(
              ErrorCodes.CONFIG_INVALID,
              `store-network listener cannot listen on ${lan.host}:${lan.port}: ${err.code ?? err.message} (change api.lan.host or api.lan.port)`,
              { cause: err },
            ),
          ),
        );
        srv.listen(lan.port, lan.host, () => resolve());
      });
      server = srv;
      const address = srv.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const url = `https://${host}:${address.port}`;
      log.info({ url, fingerprint: certificate.fingerprint }, 'store-network listener for paired registers');
      return { url, fingerprint: certificate.fingerprint };
    },
  };
}
