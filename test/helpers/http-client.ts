import { request, type IncomingHttpHeaders } from 'node:http';
import { assertContract } from './api-contract.js';
import { until, type WaitOptions } from './wait.js';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * A raw HTTP call (node:http), so tests can send any Host, Origin or body. Every answer is
 * checked against the local API's OpenAPI document (api-contract.ts): a mismatch rejects.
 */
export function call(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | object } = {},
): Promise<Reply> {
  const url = new URL(path, base);
  const body =
    opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(opts.body !== undefined && typeof opts.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        try {
          assertContract(method, url.pathname, res.statusCode ?? 0, res.headers['content-type'], text);
        } catch (err) {
          reject(err);
          return;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Opens an SSE stream and collects messages until `until` says enough; then closes it. */
export function readSse(
  base: string,
  headers: Record<string, string>,
  until: (messages: SseMessage[]) => boolean,
): Promise<{ status: number; messages: SseMessage[]; headers: IncomingHttpHeaders }> {
  const url = new URL('/api/v1/events', base);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers }, (res) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        req.destroy();
        resolve({ status: res.statusCode ?? 0, messages, headers: res.headers });
      };
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', finish);
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let idx: number;
        while ((idx = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, idx);
          buffer = buffer.slice(idx + 2);
          const msg: SseMessage = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) msg.comment = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id' || field === 'event' || field === 'data') msg[field] = value;
            }
          }
          messages.push(msg);
          if (until(messages)) finish();
        }
      });
      res.on('end', finish);
    });
    req.on('error', (err) => {
      reject(err);
    });
    req.end();
  });
}

/** A transaction as the local API's `GET /api/v1/transactions/{id}` gives it. */
export type ApiTransaction = Record<string, unknown> & { clientTransactionId: string; state: string };

/**
 * Reads a transaction over the local API at `base` until `done` holds for it (a string: its
 * state is that string), and returns it.
 */
export async function untilTransaction(
  base: string,
  headers: Record<string, string>,
  id: string,
  done: string | ((t: ApiTransaction) => boolean),
  opts: WaitOptions = {},
): Promise<ApiTransaction> {
  const holds = typeof done === 'string' ? (t: ApiTransaction) => t.state === done : done;
  const what = typeof done === 'string' ? `transaction ${id} ${done}` : `transaction ${id} to reach the awaited state`;
  return until(
    what,
    async () => (await call(base, 'GET', `/api/v1/transactions/${id}`, { headers })).json.transaction as ApiTransaction,
    holds,
    opts,
  );
}
