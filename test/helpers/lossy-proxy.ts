import { connect as netConnect, createServer as netServer, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, createServer as tlsServer } from 'node:tls';

/**
 * A TCP proxy between the example register (examples/register.ts) and the agent that loses
 * answers, as a flaky store network would: the first `drops` sale requests reach the agent
 * (the sale starts) but the connection is cut before the answer gets back. It also breaks
 * the event stream once, right after the first transaction update, so the register resumes
 * it with Last-Event-ID. The Host header is rewritten to the agent's, which on loopback only
 * answers to its own address (docs/architecture.md, "Invariants").
 *
 * With `tls`, it stands on the store network in front of the listener (docs/registers.md):
 * it terminates TLS with the terminal's own key and certificate, so the register's pinning
 * still holds and the proxy can see which request is the sale, and talks TLS to the
 * listener trusting only that certificate.
 */
export interface LossyProxyOptions {
  drops: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  tls?: { key: string; cert: string };
}

export function lossyProxy(target: URL, opts: LossyProxyOptions) {
  const stats = { droppedSales: 0, saleRequests: 0, droppedEvents: 0 };
  const sockets = new Set<Socket>();
  const host = opts.host ?? '127.0.0.1';
  const upstreamOf = (): Socket =>
    opts.tls !== undefined
      ? tlsConnect({ host: target.hostname, port: Number(target.port), ca: opts.tls.cert })
      : netConnect(Number(target.port), target.hostname);
  const handle = (client: Socket): void => {
    const upstream = upstreamOf();
    sockets.add(client);
    sockets.add(upstream);
    let dropAnswer = false;
    let dropEventsAfterFirstUpdate = false;
    client.on('data', (chunk: Buffer) => {
      let text = chunk.toString('latin1');
      if (/^[A-Z]+ \//.test(text)) {
        text = text.replace(/^host: .*\r$/im, `host: ${target.host}\r`);
        if (text.startsWith('POST /api/v1/sales ')) {
          stats.saleRequests += 1;
          if (stats.droppedSales < opts.drops) dropAnswer = true;
        }
        if (text.startsWith('GET /api/v1/events') && stats.droppedEvents === 0) dropEventsAfterFirstUpdate = true;
      }
      upstream.write(Buffer.from(text, 'latin1'));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (dropAnswer) {
        // The agent answered; the register never hears it.
        stats.droppedSales += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
      if (dropEventsAfterFirstUpdate && chunk.toString('utf8').includes('event: transaction.updated')) {
        // The register saw an update: the stream breaks and it must resume after that event.
        dropEventsAfterFirstUpdate = false;
        stats.droppedEvents += 1;
        client.end(() => client.destroy());
        upstream.destroy();
      }
    });
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  };
  const server: Server =
    opts.tls !== undefined ? tlsServer({ key: opts.tls.key, cert: opts.tls.cert }, handle) : netServer(handle);
  return {
    stats,
    /** Answers the URL the register is given instead of the agent's. */
    async start(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, host, () => r()));
      const port = (server.address() as { port: number }).port;
      return `${opts.tls !== undefined ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
    },
    async close(): Promise<void> {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
