import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

const ANSWER = JSON.stringify({
  transaction: {
    clientTransactionId: '00000000-0000-4000-8000-000000000000',
    kind: 'sale',
    state: 'created',
    amount: '12.34',
    currency: 'EUR',
    method: 'card',
    createdAt: new Date(0).toISOString(),
  },
});

/**
 * The local-API floor of a sale (docs/performance.md, "Quality targets"): the same POST the counter
 * page sends (same client, same headers and body) to a bare node:http server on loopback
 * that reads the body and answers 202 with a JSON body the size of the agent's.
 */
export class BareHttp {
  private readonly server: Server;
  private url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
        res.end(ANSWER);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async once(body: Record<string, unknown>): Promise<void> {
    const res = await request(`${this.url}/api/v1/sales`, {
      method: 'POST',
      headers: { authorization: 'Bearer floor-0000000000000000', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.body.json();
    if (res.statusCode !== 202) throw new Error(`bare local request answered ${res.statusCode}`);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
