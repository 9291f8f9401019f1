import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket, PeerCertificate } from 'node:tls';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../core/index.js';
import type { FaultInjector, FaultSpec } from './faults.js';

export type Listener = 'api' | 'mtls';

export interface SimRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the form fields of an application/x-www-form-urlencoded body. */
  body: unknown;
  rawBody: string;
  /** The TLS client certificate, only when it chains to the platform CA. */
  clientCert: PeerCertificate | undefined;
  /** RFC 8705 x5t#S256 of clientCert: base64url SHA-256 of its DER bytes. */
  clientThumbprint: string | undefined;
  listener: Listener;
}

export interface SimResponse {
  status: number;
  body?: unknown;
  /** A non-JSON body (e.g. the login page); set content-type in headers. */
  text?: string;
  headers?: Record<string, string>;
}

/** A handler throws this to answer with an error body `{errorCode, errorMessage}` (docs/demo-platform.md, "Demo platform"). */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Replaces the default body (OAuth errors use {error, error_description}). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export type SimHandler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

interface Route {
  method: string;
  parts: string[];
  name: string;
  listeners: readonly Listener[];
  handler: SimHandler;
}

const MAX_BODY = 1 << 20;

export function thumbprintOf(cert: PeerCertificate): string {
  return createHash('sha256').update(cert.raw).digest('base64url');
}

export class SimRouter {
  private readonly routes: Route[] = [];
  private readonly handled: Array<() => void> = [];

  constructor(
    private readonly faults: FaultInjector,
    private readonly log: Logger,
    private readonly clock: Pick<Clock, 'sleep'>,
  ) {}

  /**
   * `fn` runs after every handler, before its answer leaves (the ledger file is written
   * there: what the platform answered is on disk first). A throwing `fn` answers 500.
   */
  onHandled(fn: () => void): void {
    this.handled.push(fn);
  }

  /** pattern like /payment/v1/transactions/:id/cancel; `name` is the fault-injection key. */
  add(
    method: string,
    pattern: string,
    name: string,
    handler: SimHandler,
    listeners: readonly Listener[] = ['api'],
  ): void {
    this.routes.push({ method, parts: pattern.split('/').filter(Boolean), name, listeners, handler });
  }

  private match(
    method: string,
    path: string,
    listener: Listener,
  ): { route: Route; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    let methodMismatch = false;
    for (const route of this.routes) {
      if (!route.listeners.includes(listener) || route.parts.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const want = route.parts[i] as string;
        const got = parts[i] as string;
        if (want.startsWith(':')) params[want.slice(1)] = decodeURIComponent(got);
        else ok = want === got;
      }
      if (!ok) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      return { route, params };
    }
    return methodMismatch ? 'method' : undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse, listener: Listener): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://platform.invalid');
    const found = this.match(req.method ?? 'GET', url.pathname, listener);
    if (found === undefined)
      return send(
        res,
        { status: 404, body: { errorCode: 'NOT_FOUND', errorMessage: `no route ${url.pathname}` } },
        this.faults.now(),
      );
    if (found === 'method')
      return send(
        res,
        { status: 405, body: { errorCode: 'METHOD_NOT_ALLOWED', errorMessage: 'method not allowed' } },
        this.faults.now(),
      );
    const { route, params } = found;

    const fault = this.faults.take(route.name);
    if (fault?.latencyMs) await this.clock.sleep(fault.latencyMs);
    if (fault?.drop === 'before') {
      req.socket.destroy();
      return;
    }
    if (fault?.status !== undefined && fault.drop === undefined && fault.afterRecord !== true) {
      const headers: Record<string, string> =
        fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
      if (fault.rawBody !== undefined) return sendRaw(res, fault.status, fault.rawBody, headers);
      return send(
        res,
        {
          status: fault.status,
          headers,
          body: {
            errorCode: fault.errorCode ?? 'INJECTED_FAULT',
            errorMessage: fault.errorMessage ?? 'injected fault',
          },
        },
        this.faults.now(),
      );
    }

    let rawBody: string;
    try {
      rawBody = await readBody(req);
    } catch {
      return send(
        res,
        { status: 413, body: { errorCode: 'PAYLOAD_TOO_LARGE', errorMessage: 'body too large' } },
        this.faults.now(),
      );
    }
    let body: unknown = undefined;
    const type = String(req.headers['content-type'] ?? '');
    if (rawBody.length > 0) {
      if (type.includes('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(rawBody));
      else {
        try {
          body = JSON.parse(rawBody);
        } catch {
          return send(
            res,
            { status: 400, body: { errorCode: 'INVALID_JSON', errorMessage: 'request body is not valid JSON' } },
            this.faults.now(),
          );
        }
      }
    }
    const socket = req.socket as TLSSocket;
    const peer =
      typeof socket.getPeerCertificate === 'function' && socket.authorized ? socket.getPeerCertificate() : undefined;
    const clientCert = peer && peer.raw ? peer : undefined;
    const simReq: SimRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      query: url.searchParams,
      headers: req.headers,
      body,
      rawBody,
      clientCert,
      clientThumbprint: clientCert ? thumbprintOf(clientCert) : undefined,
      listener,
    };
    if (fault?.recordAfterMs !== undefined) {
      // The request is in and the connection held: the client times out, looks up for its
      // grace and gives up; then it lands (the answer is never sent, see below).
      await this.clock.sleep(fault.recordAfterMs);
    }
    let response: SimResponse;
    try {
      response = await this.faults.during(route.name, () => route.handler(simReq));
    } catch (err) {
      if (err instanceof SimHttpError) {
        response = {
          status: err.status,
          headers: err.headers,
          body: err.body ?? { errorCode: err.errorCode, errorMessage: err.message },
        };
      } else {
        this.log.error({ err, route: route.name }, 'demo platform handler failed');
        response = { status: 500, body: { errorCode: 'INTERNAL', errorMessage: 'internal error' } };
      }
    }
    try {
      for (const fn of this.handled) fn();
    } catch (err) {
      this.log.error({ err, route: route.name }, 'demo platform could not record the request');
      response = {
        status: 500,
        body: { errorCode: 'INTERNAL', errorMessage: 'the demo platform could not write its ledger' },
      };
    }
    if (fault?.drop === 'after' || fault?.recordAfterMs !== undefined) {
      // The work is done and recorded; the answer is lost on the way back.
      req.socket.destroy();
      return;
    }
    if (fault?.status !== undefined && fault.afterRecord === true) {
      // e.g. a 2xx whose body the client cannot read, after the work was recorded.
      if (fault.rawBody !== undefined)
        return sendRaw(res, fault.status, fault.rawBody, { date: new Date(this.faults.now()).toUTCString() });
      return send(
        res,
        {
          status: fault.status,
          body: {
            errorCode: fault.errorCode ?? 'INJECTED_FAULT',
            errorMessage: fault.errorMessage ?? 'injected fault',
          },
        },
        this.faults.now(),
      );
    }
    if (fault?.transactionStatus !== undefined) response = withStatusWord(response, fault.transactionStatus);
    send(res, faulted(response, fault), this.faults.now());
  }
}

/** A 2xx answer whose transaction record carries `status` in place of its own (the transactionStatus fault). */
function withStatusWord(response: SimResponse, status: string): SimResponse {
  const body = response.body;
  if (
    response.status < 200 ||
    response.status > 299 ||
    typeof body !== 'object' ||
    body === null ||
    !('transactionStatus' in body)
  )
    return response;
  return { ...response, body: { ...body, transactionStatus: status } };
}

/** The answer as a fault reshapes it: fields left out of a 2xx, or an unknown id's 404 given another status. */
function faulted(response: SimResponse, fault: FaultSpec | undefined): SimResponse {
  if (fault?.unknownIdStatus !== undefined && response.status === 404) {
    return {
      ...response,
      status: fault.unknownIdStatus,
      body: { errorCode: 'INVALID_TRANSACTION_ID', errorMessage: 'not a valid transaction id' },
    };
  }
  const body = response.body;
  if (
    fault?.omit === undefined ||
    response.status < 200 ||
    response.status > 299 ||
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body)
  )
    return response;
  const kept = Object.fromEntries(Object.entries(body).filter(([k]) => !fault.omit?.includes(k)));
  return { ...response, body: kept };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, r: SimResponse, now: number): void {
  // The Date header follows the platform clock (with any injected offset): clients measure skew from it.
  const headers: Record<string, string> = { date: new Date(now).toUTCString(), ...r.headers };
  if (r.text !== undefined)
    return sendRaw(res, r.status, r.text, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  if (r.body === undefined) {
    res.writeHead(r.status, headers).end();
    return;
  }
  sendRaw(res, r.status, JSON.stringify(r.body), { 'content-type': 'application/json', ...headers });
}

function sendRaw(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}
