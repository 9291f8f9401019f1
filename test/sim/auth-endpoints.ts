import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import { startDemoPlatform, type DemoPlatform } from '../../src/sim/platform/server.js';
import { loadSeed, type Seed } from '../../src/sim/platform/seed.js';
import type { SimSettings } from '../../src/sim/platform/context.js';
import { testCerts } from '../helpers/certs.js';
import { testLogger, type LogSink } from '../helpers/log-sink.js';

export const SEED_FILE = 'config/demo-seed.json';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: <T = Record<string, unknown>>() => T;
}

export type Who = 'device' | 'unknown' | 'expired' | 'foreign' | 'none';

export interface AuthFixture {
  platform: DemoPlatform;
  sink: LogSink;
  seed: Seed;
  agents: Record<Who, Agent>;
  /** POST a form to a path of the api (default) or mtls listener. */
  form(path: string, params: Record<string, string>, opts?: CallOptions): Promise<Reply>;
  call(method: string, path: string, opts?: CallOptions & { body?: string }): Promise<Reply>;
  close(): Promise<void>;
}

export interface CallOptions {
  as?: Who;
  listener?: 'api' | 'mtls';
  headers?: Record<string, string>;
}

export async function startAuthFixture(
  opts: { settings?: Partial<SimSettings>; seed?: Seed } = {},
): Promise<AuthFixture> {
  const certs = testCerts();
  const { log, sink } = testLogger('debug');
  const seed = opts.seed ?? loadSeed(SEED_FILE);
  const platform = await startDemoPlatform({
    apiPort: 0,
    mtlsPort: 0,
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed,
    settings: opts.settings,
    log,
  });
  const ca = readFileSync(certs.caCert);
  const agent = (cert?: string, key?: string): Agent =>
    new Agent({ connect: cert && key ? { ca, cert: readFileSync(cert), key: readFileSync(key) } : { ca } });
  const agents: Record<Who, Agent> = {
    device: agent(certs.deviceCert, certs.deviceKey),
    unknown: agent(certs.unknownCert, certs.unknownKey),
    expired: agent(certs.expiredCert, certs.expiredKey),
    foreign: agent(certs.foreignCert, certs.foreignKey),
    none: agent(),
  };
  const call = async (method: string, path: string, o: CallOptions & { body?: string } = {}): Promise<Reply> => {
    const base = o.listener === 'mtls' ? platform.urls.mtls : platform.urls.api;
    const res = await request(`${base}${path}`, {
      method: method as 'GET',
      dispatcher: agents[o.as ?? 'none'],
      headers: o.headers,
      body: o.body,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, json: <T>() => JSON.parse(text) as T };
  };
  return {
    platform,
    sink,
    seed,
    agents,
    call,
    form: (path, params, o = {}) =>
      call('POST', path, {
        ...o,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...o.headers },
        body: new URLSearchParams(params).toString(),
      }),
    async close() {
      await platform.stop();
      await Promise.all(Object.values(agents).map((a) => a.close()));
    },
  };
}

/** Decodes a JWT without trusting it: header, claims, and whether the seed key signed it. */
export function decodeJwt(
  token: string,
  keyHex: string,
): { header: Record<string, unknown>; claims: Record<string, unknown>; signedBySeedKey: boolean } {
  const [h, p, s] = token.split('.') as [string, string, string];
  const mac = createHmac('sha256', Buffer.from(keyHex, 'hex')).update(`${h}.${p}`).digest('base64url');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>,
    signedBySeedKey: mac === s,
  };
}

/** RFC 8705 x5t#S256 computed apart from Node's TLS stack: openssl converts to DER, we hash. */
export function opensslThumbprint(certFile: string): string {
  const der = execFileSync('openssl', ['x509', '-in', certFile, '-outform', 'DER']);
  return createHash('sha256').update(der).digest('base64url');
}

/**
 * Shifts the platform clock so that it reads `platformMs` now (and moves on in real time).
 * Tests aim at expiry boundaries this way instead of guessing how long the run took.
 */
export function setPlatformTime(platform: DemoPlatform, platformMs: number): void {
  platform.faults.clockOffsetMs = platformMs - Date.now();
}

export const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** The secret-like strings of the test run that appear in the captured logs (expected: none). */
export function leakedSecrets(sink: LogSink, secrets: Iterable<string>): string[] {
  const text = sink.text();
  return [...secrets].filter((s) => s.length >= 8 && text.includes(s));
}
