import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP pass-through in front of one demo platform listener (TLS goes through untouched),
 * so a chaos run can make the platform unreachable for the agent: `down()` closes the
 * listening socket and cuts every connection (new connects are refused: the request never
 * left, the agent's offline case, docs/payments.md, "Offline card sale and upload"), `up()` listens again on
 * the same port.
 */
export interface UnreachableSwitch {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  readonly isDown: boolean;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number, host = '127.0.0.1'): Promise<UnreachableSwitch> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let isDown = false;
  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection({ host, port: targetPort });
        sockets.add(client);
        sockets.add(upstream);
        const end = (): void => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, host, () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const closeServer = (): Promise<void> =>
    new Promise((resolve) => {
      const s = server;
      server = undefined;
      for (const sock of sockets) sock.destroy();
      sockets.clear();
      if (s === undefined) resolve();
      else s.close(() => resolve());
    });
  await listen();
  return {
    get port() {
      return port;
    },
    get isDown() {
      return isDown;
    },
    async down() {
      if (isDown) return;
      isDown = true;
      await closeServer();
    },
    async up() {
      if (!isDown) return;
      isDown = false;
      // The port was ours a moment ago, but another process on the machine may take it as an
      // ephemeral port while it was free (a test suite running beside the chaos run): wait for
      // it to be given back, up to 30 s, rather than end the run.
      for (let attempt = 0; ; attempt++) {
        try {
          await listen();
          return;
        } catch (err) {
          if (attempt >= 1_500) throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    },
    close: closeServer,
  };
}
