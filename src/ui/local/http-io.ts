import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentError, ErrorCodes, jsonErrorText } from '../../core/index.js';

export const MAX_BODY_BYTES = 64 * 1024;

/** Headers on every answer: nothing cached, nothing sniffed, never framed, no CORS (ever). */
export function baseHeaders(): Record<string, string> {
  return {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...baseHeaders(),
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string | Buffer,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...baseHeaders(),
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    ...extra,
  });
  res.end(text);
}

function tooLarge(limit: number): AgentError {
  return new AgentError(ErrorCodes.API_BODY_TOO_LARGE, `request body too large (at most ${limit} bytes)`);
}

/** A request's body, read once: the idempotency check hashes it and the route parses it (idempotency.ts). */
const bodies = new WeakMap<IncomingMessage, Promise<Buffer>>();

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw tooLarge(MAX_BODY_BYTES);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** The raw request body (at most `limit` bytes, never more than MAX_BODY_BYTES); a second call answers the same bytes. */
export async function readRawBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  let body = bodies.get(req);
  if (body === undefined) {
    body = readAll(req);
    bodies.set(req, body);
  }
  const buf = await body;
  if (buf.length > limit) throw tooLarge(limit);
  return buf;
}

/**
 * Reads a JSON request body. An empty body reads as {}. A body must come with
 * Content-Type application/json: a browser cannot send that cross-origin without a
 * preflight, which this server never answers positively.
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const text = (await readRawBody(req, limit)).toString('utf8');
  if (text.trim() === '') return {};
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (type !== 'application/json')
    throw new AgentError(
      ErrorCodes.API_UNSUPPORTED_MEDIA_TYPE,
      'send the request body as JSON with the header Content-Type: application/json',
    );
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new AgentError(ErrorCodes.API_BAD_REQUEST, `the request body is not valid JSON (${jsonErrorText(err)})`);
  }
}

/**
 * What node's HTTP parser refuses before any route runs (a malformed request line, header or
 * body framing) is answered like every other refusal, as JSON naming what to fix, instead of
 * node's bare `400 Bad Request` (docs/local-api.md, "Errors"). Headers too large get 431.
 */
export function answerClientError(
  err: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: { writable: boolean; end(data: string): void; destroy(): void },
): void {
  // Only a request the parser could not read is answered; anything else (a reset, a TLS
  // handshake that never finished) closes the connection, as node does without this handler.
  const answerable = (err.code?.startsWith('HPE_') ?? false) || err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  if (!answerable || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = tooLarge ? '431 Request Header Fields Too Large' : timeout ? '408 Request Timeout' : '400 Bad Request';
  const message = tooLarge
    ? 'request headers too large: send fewer or shorter headers'
    : timeout
      ? 'the request took too long to arrive: send it again'
      : `malformed HTTP request (${err.code ?? 'unparsable'}): check the request line, headers and body framing`;
  const text = JSON.stringify({ error: { code: ErrorCodes.API_BAD_REQUEST, message } });
  const headers = Object.entries({
    ...baseHeaders(),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status}\r\n${headers}\r\n\r\n${text}`);
}
