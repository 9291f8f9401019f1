import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeJwt,
  leakedSecrets,
  setPlatformTime,
  startAuthFixture,
  type AuthFixture,
  type Reply,
} from './auth-endpoints.js';

const AUTH = '/oauth2/v1/demo-merchants/auth';
const TOKEN = '/oauth2/v1/demo-merchants/token';
const REDIRECT = 'http://127.0.0.1:8080/callback';
const APP = { client_id: 'portal-app', client_secret: 'demo-portal-secret' };
const USER = { username: 'staff1', password: 'demo-staff-password' };

let f: AuthFixture;
const seen = new Set<string>([APP.client_secret, USER.password]);

beforeAll(async () => {
  f = await startAuthFixture();
});
afterAll(async () => {
  await f?.close();
});

const query = (params: Record<string, string>): string => `?${new URLSearchParams(params).toString()}`;
const authParams = (extra: Record<string, string> = {}): Record<string, string> => ({
  client_id: APP.client_id,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid profile email',
  state: 'st-42',
  ...extra,
});
const location = (r: Reply): URL => {
  expect(r.status).toBe(302);
  return new URL(r.headers.location as string);
};

async function authorize(extra: Record<string, string> = {}, path = AUTH): Promise<URL> {
  const loc = location(await f.form(path, { ...authParams(extra), ...USER }));
  const code = loc.searchParams.get('code');
  if (code !== null) seen.add(code);
  return loc;
}
async function exchange(code: string, extra: Record<string, string> = {}, path = TOKEN): Promise<Reply> {
  const r = await f.form(path, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...APP, ...extra });
  if (r.status === 200) for (const k of ['access_token', 'refresh_token']) seen.add(r.json()[k] as string);
  return r;
}
const errorOf = (r: Reply): { status: number; error: unknown } => ({ status: r.status, error: r.json().error });

describe('authorization endpoint (spec endpoint 1)', () => {
  it('answers a GET without credentials with a log-in form that posts the request back, escaped', async () => {
    const r = await f.call('GET', `${AUTH}${query(authParams({ state: '"><script>alert(1)</script>' }))}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text).toContain('<form method="post" action="/oauth2/v1/demo-merchants/auth">');
    expect(r.text).toContain('name="username"');
    expect(r.text).toContain('type="password"');
    expect(r.text).toContain('<input type="hidden" name="client_id" value="portal-app">');
    expect(r.text).not.toContain('<script>');
    expect(r.text).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('redirects to redirect_uri with a code and the state after a successful log-in (GET or POST)', async () => {
    const viaPost = await authorize();
    expect(`${viaPost.origin}${viaPost.pathname}`).toBe(REDIRECT);
    expect(viaPost.searchParams.get('state')).toBe('st-42');
    expect(viaPost.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const viaGet = location(await f.call('GET', `${AUTH}${query({ ...authParams(), ...USER })}`));
    expect(viaGet.searchParams.get('code')).toBeTruthy();
    expect(viaGet.searchParams.get('code')).not.toBe(viaPost.searchParams.get('code'));
  });

  it('answers 400 and never redirects when redirect_uri is not registered or the client is unknown', async () => {
    for (const params of [
      authParams({ redirect_uri: 'https://evil.example/callback' }),
      authParams({ redirect_uri: `${REDIRECT}/more` }),
      { ...authParams(), redirect_uri: '' },
      authParams({ client_id: 'no-such-client' }),
      // A merchant client has no registered redirect URI at all.
      authParams({ client_id: 'terminal-app-1001' }),
    ]) {
      const r = await f.form(AUTH, { ...params, ...USER });
      expect(r.status).toBe(400);
      expect(r.headers.location).toBeUndefined();
      expect(r.json().error).toBe('invalid_request');
    }
  });

  it('redirects with error=401 and the state for wrong user credentials', async () => {
    const attempts: Array<Record<string, string>> = [
      { username: 'staff1', password: 'wrong-password' },
      { username: 'nobody', password: 'x' },
      { username: 'staff1' },
    ];
    for (const creds of attempts) {
      const loc = location(await f.form(AUTH, { ...authParams(), ...creds }));
      expect(Object.fromEntries(loc.searchParams)).toEqual({ error: '401', state: 'st-42' });
    }
  });

  it('redirects with error=403 when the resource owner denies, and error=400 for a bad response_type or scope', async () => {
    expect(Object.fromEntries(location(await f.form(AUTH, { ...authParams(), action: 'deny' })).searchParams)).toEqual({
      error: '403',
      state: 'st-42',
    });
    expect(Object.fromEntries((await authorize({ response_type: 'token' })).searchParams)).toEqual({
      error: '400',
      state: 'st-42',
    });
    expect(Object.fromEntries((await authorize({ scope: 'everything' })).searchParams)).toEqual({
      error: '400',
      state: 'st-42',
    });
    const noState = await authorize({ response_type: 'token', state: '' });
    expect(noState.searchParams.get('error')).toBe('400');
  });

  it('answers 404 for an unknown user domain', async () => {
    expect((await f.call('GET', `/oauth2/v1/nobody/auth${query(authParams())}`)).status).toBe(404);
  });
});

describe('authorization_code grant', () => {
  it('exchanges a code for the user token of the granted scope', async () => {
    const code = (await authorize({ scope: 'openid profile email phone address auth' })).searchParams.get(
      'code',
    ) as string;
    const r = await exchange(code);
    expect(r.status).toBe(200);
    const body = r.json();
    expect(Object.keys(body)).toEqual([
      'access_token',
      'expires_in',
      'refresh_expires_in',
      'refresh_token',
      'token_type',
      'not-before-policy',
      'scope',
    ]);
    expect(body.scope).toBe('openid profile email phone address auth');
    const { claims, signedBySeedKey } = decodeJwt(body.access_token as string, f.seed.signingKeyHex);
    expect(signedBySeedKey).toBe(true);
    expect(claims).toMatchObject({
      azp: 'portal-app',
      entityId: 'm-1001',
      preferred_username: 'staff1',
      name: 'Sam Staff',
      given_name: 'Sam',
      family_name: 'Staff',
      email: 'staff1@demo.example',
      email_verified: true,
      phone_number: '+4930123456',
      phone_number_verified: true,
      address: expect.any(Object),
      // A browser is a public device (spec: claims of scope auth by device class).
      device_type: 'public',
      device_id: 'unknown',
      method: 'web',
      '2fa': 'none',
    });
    expect(claims.cnf).toBeUndefined();
  });

  it('uses the default scope profile email when none is asked for', async () => {
    const params = authParams();
    delete params.scope;
    const loc = location(await f.form(AUTH, { ...params, ...USER }));
    const r = await exchange(loc.searchParams.get('code') as string);
    expect(r.json().scope).toBe('profile email');
  });

  it('accepts a code once only, and a replay revokes the refresh token issued for it', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect(errorOf(await exchange(code))).toEqual({ status: 400, error: 'invalid_grant' });
    const refresh = await f.form(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: first.json().refresh_token as string,
      ...APP,
    });
    expect(errorOf(refresh)).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('refuses a redirect_uri different from the authorization request with invalid_grant', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    expect(errorOf(await exchange(code, { redirect_uri: 'http://127.0.0.1:8080/other' }))).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    const code2 = (await authorize()).searchParams.get('code') as string;
    expect(errorOf(await f.form(TOKEN, { grant_type: 'authorization_code', code: code2, ...APP }))).toEqual({
      status: 400,
      error: 'invalid_request',
    });
  });

  it('refuses a code presented by another client, a wrong client secret and an unknown code', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    expect(
      errorOf(await exchange(code, { client_id: 'terminal-app-1001', client_secret: 'demo-secret-1001-change-me' })),
    ).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    const code2 = (await authorize()).searchParams.get('code') as string;
    expect(errorOf(await exchange(code2, { client_secret: 'wrong-secret' }))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(errorOf(await exchange('made-up-code'))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('lets a code expire 60 s after it was issued, on the platform clock', async () => {
    const freshFrom = f.platform.context.now();
    const fresh = (await authorize()).searchParams.get('code') as string;
    const staleFrom = f.platform.context.now();
    const stale = (await authorize()).searchParams.get('code') as string;
    const staleTo = f.platform.context.now();
    try {
      // Issued at freshFrom or later: still valid a second before freshFrom + 60 s.
      setPlatformTime(f.platform, freshFrom + 59_000);
      expect((await exchange(fresh)).status).toBe(200);
      // Issued at staleTo at the latest: expired from staleTo + 60 s on.
      setPlatformTime(f.platform, staleTo + 60_000);
      expect(staleTo - staleFrom).toBeLessThan(60_000);
      expect(errorOf(await exchange(stale))).toEqual({ status: 400, error: 'invalid_grant' });
    } finally {
      f.platform.faults.clockOffsetMs = 0;
    }
  });

  it('refreshes a user token with rotation', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    const first = (await exchange(code)).json();
    const refreshed = await f.form(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      ...APP,
    });
    expect(refreshed.status).toBe(200);
    seen.add(refreshed.json().access_token as string);
    seen.add(refreshed.json().refresh_token as string);
    expect(decodeJwt(refreshed.json().access_token as string, f.seed.signingKeyHex).claims.preferred_username).toBe(
      'staff1',
    );
    const reuse = await f.form(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      ...APP,
    });
    expect(errorOf(reuse)).toEqual({ status: 400, error: 'invalid_grant' });
  });
});

describe('realm URLs (spec endpoint 6)', () => {
  it('run the same code flow under /auth/realms/{realm}/protocol/openid-connect', async () => {
    const base = '/auth/realms/demo/protocol/openid-connect';
    const form = await f.call('GET', `${base}/auth${query(authParams())}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain(`action="${base}/auth"`);
    const loc = await authorize({}, `${base}/auth`);
    expect(loc.searchParams.get('state')).toBe('st-42');
    const r = await exchange(loc.searchParams.get('code') as string, {}, `${base}/token`);
    expect(r.status).toBe(200);
    const bad = await f.form(`${base}/auth`, { ...authParams({ redirect_uri: 'https://evil.example/' }), ...USER });
    expect(bad.status).toBe(400);
    expect((await f.call('GET', `/auth/realms/nope/protocol/openid-connect/auth${query(authParams())}`)).status).toBe(
      404,
    );
  });
});

describe('logs', () => {
  it('never carry a client secret, password, code or token', () => {
    expect(f.sink.text()).toContain('authorization code issued');
    expect(leakedSecrets(f.sink, seen)).toEqual([]);
  });
});

describe("a terminal's loopback callback (RFC 8252 7.3) and the realm's URLs", () => {
  const CALLBACK = 'http://127.0.0.1:45678/platform-sign-in/callback';
  const REALM_AUTH = '/auth/realms/demo/protocol/openid-connect/auth';
  const REALM_TOKEN = '/auth/realms/demo/protocol/openid-connect/token';

  it('matches a registered loopback redirect URI on any port, and nothing else more loosely', async () => {
    const loc = await authorize({ redirect_uri: CALLBACK }, REALM_AUTH);
    expect(`${loc.origin}${loc.pathname}`).toBe(CALLBACK);
    const code = loc.searchParams.get('code') as string;
    const r = await exchange(code, { redirect_uri: CALLBACK }, REALM_TOKEN);
    expect(r.status).toBe(200);
    for (const other of [
      'http://127.0.0.1:45678/platform-sign-in/other',
      'https://127.0.0.1:45678/platform-sign-in/callback',
      'http://10.0.0.7:45678/platform-sign-in/callback',
      'http://u:p@127.0.0.1:45678/platform-sign-in/callback',
    ]) {
      const refused = await f.form(REALM_AUTH, { ...authParams({ redirect_uri: other }), ...USER });
      expect(refused.status, other).toBe(400);
    }
  });

  it("lets the log-in form's answer redirect to the client's callback (CSP form-action names its origin)", async () => {
    const r = await f.call('GET', `${REALM_AUTH}${query(authParams({ redirect_uri: CALLBACK }))}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toBe("default-src 'none'; form-action 'self' http://127.0.0.1:45678");
  });
});
