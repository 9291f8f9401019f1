import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { connect } from 'node:tls';
import { Agent, request, type Dispatcher } from 'undici';
import { contractInterceptor } from './api-contract-dispatcher.js';

/**
 * An address of this machine that is not loopback, standing in for the store network
 * (docs/registers.md, "Registers on the store network"); another loopback address when
 * the machine has none.
 */
export function storeNetworkAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.2';
}

/** The terminal's certificate as a trust anchor, after checking it against the fingerprint the clerk read out. */
export async function pinnedCertificate(url: string, fingerprint: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false });
  await once(socket, 'secureConnect');
  const cert = socket.getPeerX509Certificate();
  socket.destroy();
  if (cert === undefined || cert.fingerprint256 !== fingerprint)
    throw new Error(`certificate fingerprint ${cert?.fingerprint256 ?? 'none'} is not the pinned ${fingerprint}`);
  return cert.toString();
}

export interface RegisterAnswer {
  status: number;
  json: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * HTTPS to the terminal's store-network listener, trusting only the pinned certificate.
 * Every answer is checked against the OpenAPI document (api-contract.ts): a mismatch fails
 * the call.
 */
export class RegisterClient {
  private readonly dispatcher: Dispatcher;

  constructor(
    readonly url: string,
    ca: string,
    public apiKey?: string,
  ) {
    this.dispatcher = new Agent({ connect: { ca } }).compose(contractInterceptor);
  }

  async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RegisterAnswer> {
    const res = await request(`${this.url}${path}`, {
      method,
      dispatcher: this.dispatcher,
      headers: {
        ...(this.apiKey !== undefined ? { authorization: `Bearer ${this.apiKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      headers: res.headers,
    };
  }

  /** Opens the event stream and collects each event's data until `close()`. */
  async events(lastEventId?: string): Promise<{
    events: Array<{ id?: string; type: string; data: Record<string, unknown> }>;
    close: () => void;
    ended: Promise<void>;
  }> {
    const controller = new AbortController();
    const res = await request(`${this.url}/api/v1/events`, {
      dispatcher: this.dispatcher,
      headers: {
        authorization: `Bearer ${this.apiKey ?? ''}`,
        accept: 'text/event-stream',
        ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
      },
      signal: controller.signal,
    });
    if (res.statusCode !== 200) throw new Error(`event stream answered ${res.statusCode}`);
    const events: Array<{ id?: string; type: string; data: Record<string, unknown> }> = [];
    const ended = (async () => {
      let buffer = '';
      try {
        for await (const chunk of res.body) {
          buffer += (chunk as Buffer).toString('utf8');
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const type = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            const id = /^id: (.*)$/m.exec(block)?.[1];
            if (type !== undefined && data !== undefined)
              events.push({
                ...(id !== undefined ? { id } : {}),
                type,
                data: JSON.parse(data) as Record<string, unknown>,
              });
          }
        }
      } catch {
        // aborted or cut by the server
      }
    })();
    return { events, close: () => controller.abort(), ended };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
