import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuthStats } from '../../src/sim/platform/auth/index.js';
import { testCerts } from '../helpers/certs.js';
import {
  decodeJwt,
  leakedSecrets,
  opensslThumbprint,
  startAuthFixture,
  type AuthFixture,
  type Reply,
  type Who,
} from './auth-endpoints.js';

/** The demo platform's strict profile for tokens (docs/demo-platform.md, "Demo platform"). */
const MTLS_TOKEN = '/oauth2-mtls/v1/token';
const OAUTH_TOKEN = '/oauth2/v1/demo-merchants/token';
const M1 = { client_id: 'terminal-app-1001', client_secret: 'demo-secret-1001-change-me' };
const M2 = { client_id: 'terminal-app-1002', client_secret: 'demo-secret-1002-change-me' };
const STAFF = { username: 'staff1', password: 'demo-staff-password', client_id: 'powered-app' };

let f: AuthFixture;
let deviceThumbprint: string;
const seen = new Set<string>([M1.client_secret, M2.client_secret, STAFF.password]);

beforeAll(async () => {
  f = await startAuthFixture({ settings: { accessTokenSeconds: 300, refreshTokenSeconds: 900 } });
  deviceThumbprint = opensslThumbprint(testCerts().deviceCert);
});
afterAll(async () => {
  await f?.close();
});
beforeEach(async () => {
  await profile('strict');
});

async function profile(name: 'standard' | 'strict'): Promise<void> {
  const r = await f.call('PUT', '/sim/control/profile', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ profile: name }),
  });
  expect(r.status).toBe(204);
}
function remember(r: Reply): Reply {
  if (r.status === 200 && r.text.startsWith('{')) {
    const body = r.json();
    for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof body[k] === 'string') seen.add(body[k]);
  }
  return r;
}
const mtlsToken = async (params: Record<string, string>, as: Who = 'device'): Promise<Reply> =>
  remember(await f.form(MTLS_TOKEN, params, { as, listener: 'mtls' }));
const oauthToken = async (params: Record<string, string>, as: Who = 'device'): Promise<Reply> =>
  remember(await f.form(OAUTH_TOKEN, params, { as }));
const claimsOf = (jwt: unknown): Record<string, unknown> => decodeJwt(jwt as string, f.seed.signingKeyHex).claims;
const errorOf = (r: Reply): { status: number; error: unknown } => ({ status: r.status, error: r.json().error });
const stats = async (): Promise<AuthStats> => (await f.call('GET', '/sim/control/auth/stats')).json<AuthStats>();

describe('strict: device tokens without cnf', () => {
  it('client_credentials at the device token endpoint: no auth scope, cnf null, id_token, and null for the members it does not fill', async () => {
    const r = await mtlsToken({ grant_type: 'client_credentials', ...M1 });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body.scope).toBe('profile email');
    expect(body.id_token).toBeTruthy();
    expect(body.refresh_expires_in).toBe(900);
    // No user session: no session_state and no not-before policy, written as null.
    expect(body).toMatchObject({ session_state: null, 'not-before-policy': null });
    const claims = claimsOf(body.access_token);
    expect(claims.cnf).toBeNull();
    expect(claims.device_id).toBeNull();
    // The service account has no given or family name: the profile claims it does not fill are null.
    expect(claims).toMatchObject({
      given_name: null,
      family_name: null,
      preferred_username: 'service-account-terminal-app-1001',
    });
    expect(claims).toMatchObject({ azp: 'terminal-app-1001', entityId: 'm-1001', user_domain: 'demo-merchants' });
    // The payment API takes it from any connection.
    f.platform.context.tokens.verifyBearer(`Bearer ${body.access_token as string}`, undefined);
  });

  it('password grant: scope openid profile email, no cnf, id_token and session_state', async () => {
    const r = await mtlsToken({ grant_type: 'password', ...STAFF, scope: 'openid profile email' });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body.scope).toBe('openid profile email');
    expect(body.id_token).toBeTruthy();
    expect(typeof body.session_state).toBe('string');
    expect(body['not-before-policy']).toBeGreaterThan(0);
    const claims = claimsOf(body.access_token);
    expect(claims.cnf).toBeNull();
    expect(claims).toMatchObject({ azp: 'powered-app', preferred_username: 'staff1', user_domain: 'demo-merchants' });
  });

  it('client_credentials at the security host: id_token, session_state, not-before-policy, refresh_token and refresh_expires_in all null', async () => {
    const r = await oauthToken({ grant_type: 'client_credentials', ...M1 });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({
      id_token: null,
      session_state: null,
      'not-before-policy': null,
      refresh_token: null,
      refresh_expires_in: null,
      token_type: 'Bearer',
    });
    await profile('standard');
    const standard = (await oauthToken({ grant_type: 'client_credentials', ...M1 })).json();
    for (const key of ['id_token', 'session_state']) expect(key in standard).toBe(false);
    expect(standard).toMatchObject({ 'not-before-policy': 0, refresh_expires_in: 900 });
    expect(typeof standard.refresh_token).toBe('string');
  });

  it('cnf belongs to the auth scope: asked for, the token is bound to the certificate', async () => {
    const body = (await mtlsToken({ grant_type: 'client_credentials', ...M1, scope: 'profile auth' })).json();
    expect(body.scope).toBe('profile auth');
    expect(claimsOf(body.access_token)).toMatchObject({ cnf: { 'x5t#S256': deviceThumbprint }, '2fa': 'tls' });
  });

  it('standard keeps certificate-bound device tokens with the auth scope and not-before-policy 0', async () => {
    await profile('standard');
    const body = (await mtlsToken({ grant_type: 'client_credentials', ...M1 })).json();
    expect(body.scope).toBe('profile email auth');
    expect(body['not-before-policy']).toBe(0);
    expect(claimsOf(body.access_token).cnf).toEqual({ 'x5t#S256': deviceThumbprint });
  });
});

describe('strict: refresh_token only at the security host', () => {
  it('the device token endpoint answers 400 unsupported_grant_type, counted as a refused refresh there', async () => {
    const granted = (await mtlsToken({ grant_type: 'client_credentials', ...M1 })).json();
    const before = await stats();
    const r = await mtlsToken({ grant_type: 'refresh_token', refresh_token: granted.refresh_token as string, ...M1 });
    expect(errorOf(r)).toEqual({ status: 400, error: 'unsupported_grant_type' });
    const after = await stats();
    expect(after.byEndpoint.mtls.refused.refresh_token - before.byEndpoint.mtls.refused.refresh_token).toBe(1);
    // The refresh token is untouched and works at the user domain's token endpoint.
    const ok = await oauthToken({ grant_type: 'refresh_token', refresh_token: granted.refresh_token as string, ...M1 });
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.json().access_token).cnf).toBeNull();
    expect((await stats()).byEndpoint.oauth.granted.refresh_token - after.byEndpoint.oauth.granted.refresh_token).toBe(
      1,
    );
  });

  it('standard still accepts a refresh at the device token endpoint', async () => {
    await profile('standard');
    const granted = (await mtlsToken({ grant_type: 'client_credentials', ...M1 })).json();
    expect(
      (await mtlsToken({ grant_type: 'refresh_token', refresh_token: granted.refresh_token as string, ...M1 })).status,
    ).toBe(200);
  });
});

describe('strict: a renewed secret', () => {
  it('is refused with 401 unauthorized_client (identity-server style), an unknown client with 401 invalid_client', async () => {
    const renewed = (await f.call('POST', '/sim/control/clients/terminal-app-1002/renew-secret')).json<{
      clientSecret: string;
    }>().clientSecret;
    seen.add(renewed);
    for (const r of [
      await mtlsToken({ grant_type: 'client_credentials', ...M2 }),
      await oauthToken({ grant_type: 'client_credentials', ...M2 }),
    ]) {
      expect(errorOf(r)).toEqual({ status: 401, error: 'unauthorized_client' });
      expect(r.headers['www-authenticate']).toBeDefined();
      expect(typeof r.json().error_description).toBe('string');
    }
    expect(
      errorOf(await mtlsToken({ grant_type: 'client_credentials', client_id: 'no-such-client', client_secret: 'x' })),
    ).toEqual({ status: 401, error: 'invalid_client' });
    expect(
      (await mtlsToken({ grant_type: 'client_credentials', client_id: M2.client_id, client_secret: renewed })).status,
    ).toBe(200);
  });

  it('standard answers the old secret with 401 invalid_client', async () => {
    await profile('standard');
    expect(errorOf(await mtlsToken({ grant_type: 'client_credentials', ...M2 }))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
  });
});

describe('logs', () => {
  it('never carry a client secret, password or token', () => {
    expect(leakedSecrets(f.sink, seen)).toEqual([]);
  });
});

describe('strict: the custom-token call takes the contract fields only', () => {
  const CUSTOM = '/auth/realms/demo/custom-token';
  it('refuses a field outside device_model, device_id and method with invalid_request; the standard profile ignores it', async () => {
    const merchantToken = remember(await oauthToken({ grant_type: 'client_credentials', ...M1 })).json()
      .access_token as string;
    const headers = { authorization: `Bearer ${merchantToken}` };
    const exact = remember(
      await f.form(CUSTOM, { device_model: 'terminal-agent', device_id: 'dev-1', method: 'api' }, { headers }),
    );
    expect(exact.status).toBe(200);
    const extra = await f.form(
      CUSTOM,
      { device_model: 'terminal-agent', device_id: 'dev-1', method: 'api', serial_number: 'TA-0001' },
      { headers },
    );
    expect(errorOf(extra)).toEqual({ status: 400, error: 'invalid_request' });
    expect(extra.json().error_description).toMatch(/serial_number/);
    await profile('standard');
    expect(
      remember(
        await f.form(
          CUSTOM,
          { device_model: 'terminal-agent', device_id: 'dev-1', method: 'api', serial_number: 'TA-0001' },
          { headers },
        ),
      ).status,
    ).toBe(200);
  });
});
