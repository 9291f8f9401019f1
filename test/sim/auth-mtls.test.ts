import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:tls';
import { readFileSync } from 'node:fs';
import { loadSeed } from '../../src/sim/platform/seed.js';
import { SimHttpError } from '../../src/sim/platform/router.js';
import { testCerts } from '../helpers/certs.js';
import {
  decodeJwt,
  leakedSecrets,
  opensslThumbprint,
  SEED_FILE,
  setPlatformTime,
  startAuthFixture,
  type AuthFixture,
  type Reply,
  type Who,
} from './auth-endpoints.js';

const CREDS = '/oauth2-mtls/v1/merchants-credentials';
const MTLS_TOKEN = '/oauth2-mtls/v1/token';
const M1 = { client_id: 'terminal-app-1001', client_secret: 'demo-secret-1001-change-me' };
const M3 = { client_id: 'terminal-app-1003', client_secret: 'demo-secret-1003-elsewhere' };
const STAFF = { username: 'staff1', password: 'demo-staff-password', client_id: 'powered-app' };

let f: AuthFixture;
let deviceThumbprint: string;
let unknownThumbprint: string;
const seen = new Set<string>([M1.client_secret, M3.client_secret, STAFF.password, 'demo-secret-1002-change-me']);

beforeAll(async () => {
  // The demo seed plus a merchant that is not registered for terminal TA-0001.
  const seed = structuredClone(loadSeed(SEED_FILE));
  const m = seed.merchants[0];
  if (m === undefined) throw new Error('seed without merchants');
  seed.merchants.push({
    ...m,
    merchantId: 'm-1003',
    merchantName: 'Elsewhere Shop',
    clientId: M3.client_id,
    clientSecret: M3.client_secret,
  });
  f = await startAuthFixture({ seed, settings: { accessTokenSeconds: 300, refreshTokenSeconds: 900 } });
  deviceThumbprint = opensslThumbprint(testCerts().deviceCert);
  unknownThumbprint = opensslThumbprint(testCerts().unknownCert);
});
afterAll(async () => {
  await f?.close();
});

function remember(r: Reply): Reply {
  if (r.status === 200 && r.text.startsWith('{')) {
    const body = r.json();
    for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof body[k] === 'string') seen.add(body[k]);
  }
  return r;
}
const mtlsToken = async (params: Record<string, string>, as: Who = 'device'): Promise<Reply> =>
  remember(await f.form(MTLS_TOKEN, params, { as, listener: 'mtls' }));
const claimsOf = (jwt: unknown): Record<string, unknown> => decodeJwt(jwt as string, f.seed.signingKeyHex).claims;
const errorOf = (r: Reply): { status: number; error: unknown } => ({ status: r.status, error: r.json().error });
const bearer = (t: unknown): string => `Bearer ${t as string}`;

function verifyError(fn: () => unknown): SimHttpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SimHttpError) return err;
    throw err;
  }
  throw new Error('expected verifyBearer to refuse');
}

describe('merchant credentials (spec endpoint 3)', () => {
  it('answers the merchants registered for the certificate serial number with their current secrets', async () => {
    const r = await f.call('GET', `${CREDS}?serial_number=TA-0001`, { as: 'device' });
    expect(r.status).toBe(200);
    expect(r.json<unknown[]>()).toEqual([
      {
        merchantName: 'Demo Coffee',
        userDomain: 'demo-merchants',
        clientId: 'terminal-app-1001',
        clientSecret: M1.client_secret,
      },
      {
        merchantName: 'Demo Books',
        userDomain: 'demo-merchants',
        clientId: 'terminal-app-1002',
        clientSecret: 'demo-secret-1002-change-me',
      },
    ]);
    expect(r.headers['cache-control']).toBe('no-store');
    // Also served on the device auth host (mTLS listener).
    expect((await f.call('GET', `${CREDS}?serial_number=TA-0001`, { as: 'device', listener: 'mtls' })).status).toBe(
      200,
    );
  });

  it('answers 401 without a client certificate the platform trusts (none, foreign CA, expired)', async () => {
    for (const as of ['none', 'foreign', 'expired'] as const) {
      const r = await f.call('GET', `${CREDS}?serial_number=TA-0001`, { as });
      expect(r.status, as).toBe(401);
      expect(r.json().error).toBe('invalid_client');
    }
  });

  it('answers 403 when serial_number is not the certificate serial number, and for an unknown terminal', async () => {
    expect((await f.call('GET', `${CREDS}?serial_number=TA-9999`, { as: 'device' })).status).toBe(403);
    const unknown = await f.call('GET', `${CREDS}?serial_number=TA-9999`, { as: 'unknown' });
    expect(unknown.status).toBe(403);
    expect(unknown.json().error).toBe('access_denied');
    expect((await f.call('GET', `${CREDS}?serial_number=TA-0001`, { as: 'unknown' })).status).toBe(403);
    expect((await f.call('GET', CREDS, { as: 'device' })).status).toBe(400);
  });
});

describe('device token over mutual TLS (spec endpoint 4)', () => {
  it('issues a client_credentials token bound to the certificate (cnf = independent SHA-256 of the DER)', async () => {
    const creds = (await f.call('GET', `${CREDS}?serial_number=TA-0001`, { as: 'device' })).json<
      Array<{ clientId: string; clientSecret: string }>
    >();
    const first = creds[0];
    if (first === undefined) throw new Error('no credentials');
    const r = await mtlsToken({
      grant_type: 'client_credentials',
      client_id: first.clientId,
      client_secret: first.clientSecret,
    });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(Object.keys(body)).toEqual([
      'access_token',
      'expires_in',
      'refresh_expires_in',
      'refresh_token',
      'id_token',
      'token_type',
      'not-before-policy',
      'scope',
    ]);
    expect(body).toMatchObject({
      expires_in: 300,
      refresh_expires_in: 900,
      token_type: 'Bearer',
      scope: 'profile email auth',
    });
    const claims = claimsOf(body.access_token);
    expect(claims.cnf).toEqual({ 'x5t#S256': deviceThumbprint });
    expect(claims).toMatchObject({
      azp: 'terminal-app-1001',
      entityId: 'm-1001',
      device_type: 'payment-terminal',
      device_id: 'ldev-0001',
      method: 'api',
      '2fa': 'tls',
      physical_device_id: 'TA-0001',
    });
    const id = decodeJwt(body.id_token as string, f.seed.signingKeyHex);
    expect(id.signedBySeedKey).toBe(true);
    expect(id.claims).toMatchObject({ aud: 'terminal-app-1001', typ: 'ID', sub: claims.sub });

    const verified = f.platform.auth.verifier.verifyBearer(bearer(body.access_token), deviceThumbprint);
    expect(verified.entityId).toBe('m-1001');
    expect(verified.physical_device_id).toBe('TA-0001');
  });

  it('refuses a merchant client not registered for the terminal, or a portal application, with invalid_client', async () => {
    expect(errorOf(await mtlsToken({ grant_type: 'client_credentials', ...M3 }))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(
      errorOf(
        await mtlsToken({
          grant_type: 'client_credentials',
          client_id: 'portal-app',
          client_secret: 'demo-portal-secret',
        }),
      ),
    ).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(
      errorOf(
        await mtlsToken({ grant_type: 'client_credentials', client_id: M1.client_id, client_secret: 'wrong-secret' }),
      ),
    ).toEqual({
      status: 401,
      error: 'invalid_client',
    });
  });

  it('answers 403 to an unknown terminal certificate', async () => {
    const r = await mtlsToken({ grant_type: 'client_credentials', ...M1 }, 'unknown');
    expect(r.status).toBe(403);
    expect(r.json().error).toBe('access_denied');
    const pw = await mtlsToken({ grant_type: 'password', ...STAFF, scope: 'openid profile email' }, 'unknown');
    expect(pw.status).toBe(403);
  });

  it('issues a password-grant token for staff with id_token and session_state', async () => {
    const r = await mtlsToken({ grant_type: 'password', ...STAFF, scope: 'openid profile email' });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(Object.keys(body)).toEqual([
      'access_token',
      'expires_in',
      'refresh_expires_in',
      'refresh_token',
      'id_token',
      'token_type',
      'not-before-policy',
      'session_state',
      'scope',
    ]);
    expect(body.scope).toBe('openid profile email auth');
    const claims = claimsOf(body.access_token);
    expect(claims).toMatchObject({
      azp: 'powered-app',
      preferred_username: 'staff1',
      entityId: 'm-1001',
      email: 'staff1@demo.example',
      device_id: 'ldev-0001',
      '2fa': 'tls',
      cnf: { 'x5t#S256': deviceThumbprint },
      sid: body.session_state,
    });
  });

  it('refuses wrong user credentials with invalid_grant and other clients with unauthorized_client', async () => {
    expect(errorOf(await mtlsToken({ grant_type: 'password', ...STAFF, password: 'wrong-password' }))).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect(errorOf(await mtlsToken({ grant_type: 'password', ...STAFF, username: 'nobody' }))).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect(errorOf(await mtlsToken({ grant_type: 'password', ...STAFF, client_id: 'no-such-app' }))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(
      errorOf(await mtlsToken({ grant_type: 'password', username: 'staff1', password: STAFF.password, ...M1 })),
    ).toEqual({
      status: 400,
      error: 'unauthorized_client',
    });
    expect(errorOf(await mtlsToken({ grant_type: 'password', client_id: 'powered-app', username: 'staff1' }))).toEqual({
      status: 400,
      error: 'invalid_request',
    });
    expect(errorOf(await mtlsToken({ grant_type: 'authorization_code', code: 'x', ...M1 }))).toEqual({
      status: 400,
      error: 'unsupported_grant_type',
    });
  });

  it('refreshes a bound token only with the same certificate, keeping the binding', async () => {
    const first = (await mtlsToken({ grant_type: 'client_credentials', ...M1 })).json();
    // Over the security host without a certificate: the grant is bound, so no.
    const noCert = await f.form('/oauth2/v1/demo-merchants/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      ...M1,
    });
    expect(errorOf(noCert)).toEqual({ status: 400, error: 'invalid_grant' });
    const other = await f.form(
      '/oauth2/v1/demo-merchants/token',
      { grant_type: 'refresh_token', refresh_token: first.refresh_token as string, ...M1 },
      { as: 'unknown' },
    );
    expect(errorOf(other)).toEqual({ status: 400, error: 'invalid_grant' });
    const r = await mtlsToken({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, ...M1 });
    expect(r.status).toBe(200);
    expect(claimsOf(r.json().access_token).cnf).toEqual({ 'x5t#S256': deviceThumbprint });
    expect(r.json().id_token).toBeTruthy();
    const onApi = remember(
      await f.form(
        '/oauth2/v1/demo-merchants/token',
        { grant_type: 'refresh_token', refresh_token: r.json().refresh_token as string, ...M1 },
        { as: 'device' },
      ),
    );
    expect(onApi.status).toBe(200);
  });

  it('refuses at the handshake a certificate from a foreign CA, an expired one, and no certificate', async () => {
    for (const as of ['foreign', 'expired', 'none'] as const) {
      const before = f.sink.lines.length;
      await expect(mtlsToken({ grant_type: 'client_credentials', ...M1 }, as), as).rejects.toThrow();
      const refused = f.sink
        .records()
        .slice(before)
        .filter((l) => l.msg === 'TLS handshake refused');
      expect(refused.length, as).toBeGreaterThan(0);
    }
  });

  it('refuses TLS 1.1', async () => {
    const certs = testCerts();
    const { port } = new URL(f.platform.urls.mtls);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({
        host: '127.0.0.1',
        port: Number(port),
        ca: readFileSync(certs.caCert),
        cert: readFileSync(certs.deviceCert),
        key: readFileSync(certs.deviceKey),
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        // Let the client offer TLS 1.1 at all, so it is the server that refuses it.
        ciphers: 'DEFAULT:@SECLEVEL=0',
        servername: 'localhost',
      });
      socket.once('secureConnect', () => {
        resolve(`connected with ${socket.getProtocol() ?? '?'}`);
        socket.destroy();
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(`${err.code ?? ''} ${err.message}`));
    });
    expect(outcome).not.toMatch(/^connected/);
    expect(outcome).toMatch(/ALERT_PROTOCOL_VERSION/);
  });
});

describe('verifyBearer', () => {
  let bound: Record<string, unknown>;
  let unbound: Record<string, unknown>;
  beforeAll(async () => {
    bound = (await mtlsToken({ grant_type: 'client_credentials', ...M1 })).json();
    unbound = remember(
      await f.form('/oauth2/v1/demo-merchants/token', { grant_type: 'client_credentials', ...M1 }),
    ).json();
  });

  it('accepts a bound token with the same certificate and an unbound one with or without a certificate', () => {
    expect(f.platform.auth.verifier.verifyBearer(bearer(bound.access_token), deviceThumbprint).azp).toBe(
      'terminal-app-1001',
    );
    expect(f.platform.context.tokens.verifyBearer(bearer(unbound.access_token), undefined).entityId).toBe('m-1001');
    expect(
      f.platform.context.tokens.verifyBearer(`bearer ${unbound.access_token as string}`, deviceThumbprint).entityId,
    ).toBe('m-1001');
  });

  it('refuses a bound token over a mismatching certificate or none with 401 invalid_token', () => {
    for (const thumb of [unknownThumbprint, undefined]) {
      const err = verifyError(() => f.platform.auth.verifier.verifyBearer(bearer(bound.access_token), thumb));
      expect(err.status).toBe(401);
      expect(err.errorCode).toBe('invalid_token');
      expect(err.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    }
  });

  it('refuses an expired token on the platform clock, and one not yet valid', () => {
    const { exp, nbf } = claimsOf(unbound.access_token) as { exp: number; nbf: number };
    try {
      setPlatformTime(f.platform, exp * 1000 - 1_500);
      expect(f.platform.auth.verifier.verifyBearer(bearer(unbound.access_token), undefined).exp).toBe(exp);
      setPlatformTime(f.platform, exp * 1000);
      expect(
        verifyError(() => f.platform.auth.verifier.verifyBearer(bearer(unbound.access_token), undefined)).message,
      ).toMatch(/expired/);
      setPlatformTime(f.platform, nbf * 1000 - 500);
      expect(
        verifyError(() => f.platform.auth.verifier.verifyBearer(bearer(unbound.access_token), undefined)).message,
      ).toMatch(/not yet valid/);
    } finally {
      f.platform.faults.clockOffsetMs = 0;
    }
  });

  it('refuses no header, another scheme, a refresh or id token, a forged signature and garbage', () => {
    const [h, p] = (unbound.access_token as string).split('.');
    const forged = `${h}.${p}.${Buffer.alloc(32).toString('base64url')}`;
    const payload = JSON.parse(Buffer.from(p as string, 'base64url').toString('utf8')) as Record<string, unknown>;
    const widened = `${h}.${Buffer.from(JSON.stringify({ ...payload, entityId: 'm-1002' })).toString('base64url')}.${(unbound.access_token as string).split('.')[2]}`;
    for (const auth of [
      undefined,
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      bearer(unbound.refresh_token),
      bearer(bound.id_token),
      `Bearer ${forged}`,
      `Bearer ${widened}`,
      'Bearer not.a.token',
      'Bearer',
    ]) {
      const err = verifyError(() => f.platform.auth.verifier.verifyBearer(auth, undefined));
      expect(err.status).toBe(401);
      expect(err.errorCode).toBe('invalid_token');
    }
  });
});

describe('custom-token (spec endpoint 5)', () => {
  const CUSTOM = '/auth/realms/demo/custom-token';
  let merchantToken: string;
  beforeAll(async () => {
    merchantToken = remember(
      await f.form('/oauth2/v1/demo-merchants/token', { grant_type: 'client_credentials', ...M1 }),
    ).json().access_token as string;
  });

  it('issues a device token with access, refresh and id token for a merchant token', async () => {
    const r = remember(
      await f.form(
        CUSTOM,
        { device_model: 'demo-pos-x1', device_id: 'dev-77', method: 'api' },
        { headers: { authorization: bearer(merchantToken) } },
      ),
    );
    expect(r.status).toBe(200);
    const body = r.json();
    expect(Object.keys(body)).toEqual([
      'access_token',
      'expires_in',
      'refresh_expires_in',
      'refresh_token',
      'id_token',
      'token_type',
      'not-before-policy',
      'session_state',
      'scope',
    ]);
    const claims = claimsOf(body.access_token);
    expect(claims).toMatchObject({
      azp: 'terminal-app-1001',
      entityId: 'm-1001',
      device_type: 'demo-pos-x1',
      device_id: 'dev-77',
      method: 'api',
      '2fa': 'none',
    });
    expect(claims.cnf).toBeUndefined();
    expect(f.platform.auth.verifier.verifyBearer(bearer(body.access_token), undefined).entityId).toBe('m-1001');
    expect(f.platform.auth.stats().granted.custom_token).toBeGreaterThanOrEqual(1);
  });

  it('makes the device token act for a seeded terminal of the merchant named by device_id', async () => {
    for (const deviceId of ['TA-0001', 'ldev-0001']) {
      const r = remember(
        await f.form(
          CUSTOM,
          { device_model: 'demo-pos-x1', device_id: deviceId, method: 'api' },
          { headers: { authorization: bearer(merchantToken) } },
        ),
      );
      expect(claimsOf(r.json().access_token)).toMatchObject({ device_id: 'ldev-0001', physical_device_id: 'TA-0001' });
    }
  });

  it('binds the device token to the client certificate the call came with', async () => {
    const r = remember(
      await f.form(
        CUSTOM,
        { device_model: 'demo-pos-x1', device_id: 'dev-77', method: 'device_flow' },
        { as: 'device', headers: { authorization: bearer(merchantToken) } },
      ),
    );
    expect(r.status).toBe(200);
    expect(claimsOf(r.json().access_token)).toMatchObject({
      cnf: { 'x5t#S256': deviceThumbprint },
      method: 'device_flow',
      '2fa': 'tls',
    });
  });

  it('refuses a missing or bad merchant token with 401 and bad form fields with invalid_request', async () => {
    const none = await f.form(CUSTOM, { device_model: 'm', device_id: 'd', method: 'api' });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(
      (
        await f.form(
          CUSTOM,
          { device_model: 'm', device_id: 'd', method: 'api' },
          { headers: { authorization: 'Bearer x.y.z' } },
        )
      ).status,
    ).toBe(401);
    const badMethod = await f.form(
      CUSTOM,
      { device_model: 'm', device_id: 'd', method: 'telepathy' },
      { headers: { authorization: bearer(merchantToken) } },
    );
    expect(errorOf(badMethod)).toEqual({ status: 400, error: 'invalid_request' });
    const missing = await f.form(
      CUSTOM,
      { device_model: 'm', method: 'api' },
      { headers: { authorization: bearer(merchantToken) } },
    );
    expect(errorOf(missing)).toEqual({ status: 400, error: 'invalid_request' });
    const noProfile = remember(
      await f.form('/oauth2/v1/demo-merchants/token', { grant_type: 'client_credentials', scope: 'email', ...M1 }),
    ).json();
    const r = await f.form(
      CUSTOM,
      { device_model: 'm', device_id: 'd', method: 'api' },
      { headers: { authorization: bearer(noProfile.access_token) } },
    );
    expect(r.status).toBe(403);
    expect(
      (
        await f.form(
          '/auth/realms/other/custom-token',
          { device_model: 'm', device_id: 'd', method: 'api' },
          { headers: { authorization: bearer(merchantToken) } },
        )
      ).status,
    ).toBe(404);
  });
});

describe('secret renewal seen from the terminal', () => {
  it('makes the credentials endpoint answer the new secret and the mTLS endpoint refuse the old one', async () => {
    const renewed = f.platform.auth.renewSecret('terminal-app-1001');
    seen.add(renewed);
    const creds = (await f.call('GET', `${CREDS}?serial_number=TA-0001`, { as: 'device' })).json<
      Array<{ clientId: string; clientSecret: string }>
    >();
    expect(creds.find((c) => c.clientId === 'terminal-app-1001')?.clientSecret).toBe(renewed);
    expect(errorOf(await mtlsToken({ grant_type: 'client_credentials', ...M1 }))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(
      (await mtlsToken({ grant_type: 'client_credentials', client_id: M1.client_id, client_secret: renewed })).status,
    ).toBe(200);
  });
});

describe('logs', () => {
  it('never carry a client secret, password or token', () => {
    expect(f.sink.text()).toContain('merchant credentials served');
    expect(leakedSecrets(f.sink, seen)).toEqual([]);
  });
});
