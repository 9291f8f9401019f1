import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startDemoPlatform, type DemoPlatform } from '../../src/sim/platform/server.js';
import type { AccessClaims, SimSettings, TokenVerifier } from '../../src/sim/platform/context.js';
import { SimHttpError } from '../../src/sim/platform/router.js';
import { signJwt, verifyJwtSignature } from '../../src/sim/platform/jwt.js';
import { testCerts } from '../helpers/certs.js';
import { testLogger, type LogSink } from '../helpers/log-sink.js';

export const SEED_FILE = fileURLToPath(new URL('../../config/demo-seed.json', import.meta.url));
export const DAY = 86_400_000;

export interface Reply {
  status: number;
  body: any;
  text: string;
}

export interface CallOptions {
  /** Bearer token; null = no Authorization header. Default: a token of m-1001 on TA-0001. */
  token?: string | null;
  /** Present the device certificate (TA-0001) on the TLS connection. */
  deviceCert?: boolean;
  /** Use the mTLS listener instead of the API listener. */
  mtlsListener?: boolean;
  /** Send an application/x-www-form-urlencoded body instead of JSON. */
  form?: Record<string, string>;
}

export interface PaymentsHarness {
  platform: DemoPlatform;
  sink: LogSink;
  /** A token the test verifier accepts (claims as the authorization server issues them). */
  token(claims?: {
    merchantId?: string;
    serial?: string;
    logicalDeviceId?: string;
    expiresInSeconds?: number;
    extra?: Record<string, unknown>;
  }): string;
  call(method: string, path: string, body?: unknown, opts?: CallOptions): Promise<Reply>;
  /** Sets the platform clock so that it reads `at` (ms since epoch) now. */
  setClock(at: number): void;
  close(): Promise<void>;
}

/**
 * The demo platform on port 0 with the dev certificates. With `testTokens` (the default)
 * the platform accepts HS256 tokens signed with a per-run test key, so payment tests do
 * not depend on the authorization server; otherwise the real one checks them.
 */
export async function startPaymentsHarness(
  settings: Partial<SimSettings> = {},
  opts: { testTokens?: boolean; stateFile?: string } = {},
): Promise<PaymentsHarness> {
  const certs = testCerts();
  const { log, sink } = testLogger('debug');
  const platform = await startDemoPlatform({
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: SEED_FILE,
    settings: { walletPayDelayMs: 0, ...settings },
    log,
    ...(opts.stateFile !== undefined ? { stateFile: opts.stateFile } : {}),
  });
  const key = randomBytes(16);
  if (opts.testTokens !== false) platform.context.tokens = testVerifier(key);
  const ca = readFileSync(certs.caCert);
  const plain = new Agent({ connect: { ca } });
  const withCert = new Agent({
    connect: { ca, cert: readFileSync(certs.deviceCert), key: readFileSync(certs.deviceKey) },
  });

  const harness: PaymentsHarness = {
    platform,
    sink,
    token(c = {}) {
      const nowS = Math.floor(Date.now() / 1000);
      return signJwt(
        {
          iss: `${platform.urls.api}/auth/realms/demo`,
          sub: 'test-subject',
          aud: 'terminal-app',
          azp: 'terminal-app',
          jti: randomBytes(8).toString('hex'),
          iat: nowS,
          nbf: nowS,
          exp: nowS + (c.expiresInSeconds ?? 300),
          scope: 'openid profile auth',
          entityId: c.merchantId ?? 'm-1001',
          device_type: 'payment-terminal',
          device_id: c.logicalDeviceId ?? 'ldev-0001',
          physical_device_id: c.serial ?? 'TA-0001',
          ...c.extra,
        },
        key,
        'test',
      );
    },
    async call(method, path, body, o = {}) {
      const token = o.token === undefined ? harness.token() : o.token;
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (o.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const payload =
        o.form !== undefined
          ? new URLSearchParams(o.form).toString()
          : body !== undefined
            ? JSON.stringify(body)
            : undefined;
      const base = o.mtlsListener === true ? platform.urls.mtls : platform.urls.api;
      const res = await request(`${base}${path}`, {
        method: method as 'GET',
        headers,
        ...(payload !== undefined ? { body: payload } : {}),
        dispatcher: o.deviceCert === true || o.mtlsListener === true ? withCert : plain,
      });
      const text = await res.body.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: res.statusCode, body: parsed, text };
    },
    setClock(at) {
      platform.faults.clockOffsetMs = at - Date.now();
    },
    async close() {
      await platform.stop();
      await Promise.all([plain.close(), withCert.close()]);
    },
  };
  return harness;
}

/** Accepts tokens signed with `key`; expiry on the real clock so clock-offset tests keep working. */
function testVerifier(key: Buffer): TokenVerifier {
  return {
    verifyBearer(authorization) {
      if (authorization === undefined || !authorization.startsWith('Bearer '))
        throw new SimHttpError(401, 'invalid_token', 'missing bearer token');
      const result = verifyJwtSignature(authorization.slice('Bearer '.length), key);
      if (!result.ok) throw new SimHttpError(401, 'invalid_token', result.reason);
      const claims = result.claims as AccessClaims;
      if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now())
        throw new SimHttpError(401, 'invalid_token', 'token expired');
      return claims;
    },
  };
}

let seq = 0;
/** A fresh client transaction id. */
export const newId = (prefix = 'tx'): string => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

export const isoNow = (): string => new Date().toISOString();

export function cardSale(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clientDateTime: isoNow(),
    channel: 'instore',
    clientNewTransactionId: newId('card'),
    authorizationAmount: { amount: 1250, currency: 'EUR' },
    entryMode: 'ContactChip',
    instrument: {
      instrumentType: 'card',
      card: {
        maskedPan: '476173******0010',
        scheme: 'VISA',
        expiry: '12/29',
        encryptedData: 'ENC-3f9a0c11d2',
        ksn: 'FFFF9876543210E00001',
      },
    },
    ...over,
  };
}

export function walletSale(
  wallet: 'walletA' | 'walletB',
  scenario: 'ConsumerScan' | 'MerchantScan',
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    clientDateTime: isoNow(),
    channel: 'instore',
    clientNewTransactionId: newId(wallet),
    authorizationAmount: { amount: 2000, currency: 'EUR' },
    instrument: {
      instrumentType: wallet,
      paymentScenario: scenario,
      ...(scenario === 'MerchantScan' ? { walletId: '281012345678901234' } : {}),
    },
    ...over,
  };
}

export const SERVER_TIME = /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/;
