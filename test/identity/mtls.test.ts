import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { createServer, type Server } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { request, type Agent } from 'undici';
import {
  createMtlsDispatcher,
  generateDevCerts,
  loadIdentity,
  DEV_TERMINAL_SERIAL,
  type DevCertPaths,
} from '../../src/identity/index.js';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';

const TIMEOUTS = { connectTimeoutMs: 5_000, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000 };

interface TestServer {
  url: string;
  port: number;
  requests: number;
  clientErrors: Error[];
  close(): Promise<void>;
}

/** An HTTPS server with the demo platform's mTLS listener options; answers the client certificate's subject serial. */
async function startServer(
  pki: DevCertPaths,
  tls: { minVersion?: 'TLSv1.2' | 'TLSv1'; maxVersion?: 'TLSv1.3' | 'TLSv1.1' } = {},
): Promise<TestServer> {
  const state = { requests: 0, clientErrors: [] as Error[] };
  const server: Server = createServer(
    {
      cert: readFileSync(pki.serverCert),
      key: readFileSync(pki.serverKey),
      ca: readFileSync(pki.caCert),
      minVersion: tls.minVersion ?? 'TLSv1.2',
      maxVersion: tls.maxVersion ?? 'TLSv1.3',
      requestCert: true,
      rejectUnauthorized: true,
      ...(tls.maxVersion === 'TLSv1.1' ? { ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
    },
    (req, res) => {
      state.requests++;
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ serialNumber: peer.subject?.serialNumber ?? null, protocol: socket.getProtocol() }));
    },
  );
  server.on('tlsClientError', (err) => state.clientErrors.push(err));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/`,
    port,
    get requests() {
      return state.requests;
    },
    clientErrors: state.clientErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let server: TestServer;
const dispatchers: Agent[] = [];
const cleanups: Array<() => void> = [];

function dispatcherFor(certFile: string, keyFile: string, caFile = testCerts().caCert): Agent {
  const d = createMtlsDispatcher(loadIdentity({ certFile, keyFile, caFile }), TIMEOUTS);
  dispatchers.push(d);
  return d;
}

beforeAll(async () => {
  server = await startServer(testCerts());
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
  while (cleanups.length > 0) cleanups.pop()?.();
});

describe('mTLS dispatcher against a real TLS server', () => {
  it('presents the device certificate: the server sees the terminal serial number', async () => {
    const c = testCerts();
    const res = await request(server.url, { dispatcher: dispatcherFor(c.deviceCert, c.deviceKey) });
    expect(res.statusCode).toBe(200);
    const body = (await res.body.json()) as { serialNumber: string; protocol: string };
    expect(body.serialNumber).toBe(DEV_TERMINAL_SERIAL);
    expect(['TLSv1.2', 'TLSv1.3']).toContain(body.protocol);
  });

  it('a client certificate from a foreign CA is refused at the handshake', async () => {
    const c = testCerts();
    const before = server.requests;
    const errorsBefore = server.clientErrors.length;
    // Same server, same CA file: only the client certificate differs from the accepted case.
    // The server closes the connection during the handshake (Node reports it as a reset on both sides).
    await expect(request(server.url, { dispatcher: dispatcherFor(c.foreignCert, c.foreignKey) })).rejects.toThrow(
      /closed|reset|certificate/i,
    );
    expect(server.requests).toBe(before);
    expect(server.clientErrors.length).toBeGreaterThan(errorsBefore);
  });

  it('a TLS 1.1 client is refused by the server', async () => {
    const c = testCerts();
    const errorsBefore = server.clientErrors.length;
    const err = await new Promise<Error | undefined>((resolve) => {
      const socket = connect({
        host: '127.0.0.1',
        port: server.port,
        ca: readFileSync(c.caCert),
        cert: readFileSync(c.deviceCert),
        key: readFileSync(c.deviceKey),
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        // OpenSSL 3 refuses TLS 1.1 on the client side too; lower it so the server is what refuses.
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      socket.once('secureConnect', () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.once('error', (e) => resolve(e));
    });
    expect(err).toBeInstanceOf(Error);
    // The server saw the hello and refused the protocol version.
    expect(server.clientErrors.length).toBeGreaterThan(errorsBefore);
    expect(String(server.clientErrors.at(-1)?.message)).toMatch(/unsupported protocol|version/i);
  });

  it('refuses a server whose certificate is not from the platform CA', async () => {
    const t = tempDir('terminal-agent-other-pki-');
    cleanups.push(t.cleanup);
    const other = generateDevCerts(t.dir);
    const impostor = await startServer(other);
    try {
      const c = testCerts();
      const err = await request(impostor.url, { dispatcher: dispatcherFor(c.deviceCert, c.deviceKey) }).then(
        () => undefined,
        (e: unknown) => e as NodeJS.ErrnoException,
      );
      expect(err?.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|CERT/);
      expect(impostor.requests).toBe(0);
    } finally {
      await impostor.close();
    }
  });
});
