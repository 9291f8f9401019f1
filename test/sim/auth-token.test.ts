import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basic,
  decodeJwt,
  leakedSecrets,
  setPlatformTime,
  startAuthFixture,
  UUID,
  type AuthFixture,
  type Reply,
} from './auth-endpoints.js';

const TOKEN = '/oauth2/v1/demo-merchants/token';
const M1 = { client_id: 'terminal-app-1001', client_secret: 'demo-secret-1001-change-me' };
const M2 = { client_id: 'terminal-app-1002', client_secret: 'demo-secret-1002-change-me' };

let f: AuthFixture;
const seen = new Set<string>();

function remember(r: Reply): Reply {
  if (r.status === 200 && r.text.startsWith('{')) {
    const body = r.json();
    for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof body[k] === 'string') seen.add(body[k]);
  }
  return r;
}
const token = async (params: Record<string, string>, opts?: Parameters<AuthFixture['form']>[2]): Promise<Reply> =>
  remember(await f.form(TOKEN, params, opts));
const claimsOf = (jwt: unknown): Record<string, unknown> => decodeJwt(jwt as string, f.seed.signingKeyHex).claims;
const errorOf = (r: Reply): { status: number; error: unknown } => ({ status: r.status, error: r.json().error });

beforeAll(async () => {
  f = await startAuthFixture({ settings: { accessTokenSeconds: 120, refreshTokenSeconds: 600 } });
  for (const s of [M1.client_secret, M2.client_secret, 'demo-portal-secret', 'demo-staff-password']) seen.add(s);
});
afterAll(async () => {
  await f?.close();
});

describe('client_credentials at /oauth2/v1/{userDomain}/token', () => {
  it('answers a token response with exactly the fields of the spec table', async () => {
    const r = await token({ grant_type: 'client_credentials', ...M1 });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
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
    expect(body).toMatchObject({
      expires_in: 120,
      refresh_expires_in: 600,
      token_type: 'Bearer',
      'not-before-policy': 0,
      scope: 'profile email',
    });
  });

  it('signs an HS256 JWT with the seed key carrying every registered claim and the profile claims', async () => {
    const before = Math.floor(f.platform.context.now() / 1000);
    const body = (await token({ grant_type: 'client_credentials', ...M1 })).json();
    const { header, claims, signedBySeedKey } = decodeJwt(body.access_token as string, f.seed.signingKeyHex);
    expect(signedBySeedKey).toBe(true);
    expect(header).toMatchObject({ typ: 'JWT', alg: 'HS256' });
    expect(typeof header.kid).toBe('string');
    expect(claims.aud).toContain('terminal-app-1001');
    expect(claims.sub).toMatch(UUID);
    expect(claims.jti).toMatch(UUID);
    expect(claims.azp).toBe('terminal-app-1001');
    expect(claims.iss).toBe(`${f.platform.urls.api}/auth/realms/demo`);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.exp).toBe((claims.iat as number) + 120);
    expect(claims).toMatchObject({
      scope: 'profile email',
      user_domain: 'demo-merchants',
      entityId: 'm-1001',
      um_scope: [{ entityId: 'm-1001', entityType: 'merchant' }],
      name: 'Demo Coffee',
      preferred_username: 'service-account-terminal-app-1001',
      zoneinfo: expect.any(String),
      locale: expect.stringMatching(/^[a-z]{2}-[A-Z]{2}$/),
      datetimeformat: expect.any(String),
    });
    expect(Array.isArray(claims.groups)).toBe(true);
    expect(Array.isArray(claims.permissions)).toBe(true);
    // An external machine: no certificate binding, auth claims only when asked for.
    expect(claims.cnf).toBeUndefined();
    expect(claims.device_type).toBeUndefined();
  });

  it('keeps the subject of a client stable and the token ids unique', async () => {
    const a = claimsOf((await token({ grant_type: 'client_credentials', ...M1 })).json().access_token);
    const b = claimsOf((await token({ grant_type: 'client_credentials', ...M1 })).json().access_token);
    const c = claimsOf((await token({ grant_type: 'client_credentials', ...M2 })).json().access_token);
    expect(a.sub).toBe(b.sub);
    expect(a.jti).not.toBe(b.jti);
    expect(c.sub).not.toBe(a.sub);
    expect(c.entityId).toBe('m-1002');
  });

  it('gives the auth scope claims of an external machine when scope auth is asked for', async () => {
    const r = await token({ grant_type: 'client_credentials', scope: 'profile auth', ...M1 });
    expect(r.json().scope).toBe('profile auth');
    expect(claimsOf(r.json().access_token)).toMatchObject({
      device_type: 'm2m',
      device_id: 'unknown',
      method: 'api',
      '2fa': 'none',
    });
  });

  it('accepts client authentication by HTTP Basic', async () => {
    const r = await token(
      { grant_type: 'client_credentials' },
      { headers: { authorization: basic(M1.client_id, M1.client_secret) } },
    );
    expect(r.status).toBe(200);
    expect(claimsOf(r.json().access_token).azp).toBe('terminal-app-1001');
  });

  it('refuses credentials sent both by Basic and in the body with invalid_request', async () => {
    const r = await token(
      { grant_type: 'client_credentials', ...M1 },
      { headers: { authorization: basic(M1.client_id, M1.client_secret) } },
    );
    expect(errorOf(r)).toEqual({ status: 400, error: 'invalid_request' });
  });

  it('answers invalid_client 401 with a WWW-Authenticate challenge for a wrong secret, an unknown client or none', async () => {
    for (const params of [
      { client_id: M1.client_id, client_secret: 'wrong-secret' } as Record<string, string>,
      { client_id: 'no-such-client', client_secret: 'whatever-secret' },
      { client_id: M1.client_id },
      {},
    ]) {
      const r = await token({ grant_type: 'client_credentials', ...params });
      expect(errorOf(r)).toEqual({ status: 401, error: 'invalid_client' });
      expect(r.headers['www-authenticate']).toMatch(/^Basic /);
      expect(typeof r.json().error_description).toBe('string');
    }
    const wrongBasic = await token(
      { grant_type: 'client_credentials' },
      { headers: { authorization: basic(M1.client_id, 'nope-nope') } },
    );
    expect(errorOf(wrongBasic)).toEqual({ status: 401, error: 'invalid_client' });
  });

  it('refuses client_credentials to a public client with unauthorized_client', async () => {
    expect(errorOf(await token({ grant_type: 'client_credentials', client_id: 'powered-app' }))).toEqual({
      status: 400,
      error: 'unauthorized_client',
    });
  });

  it('answers a portal application with its merchant as entityId', async () => {
    const r = await token({
      grant_type: 'client_credentials',
      client_id: 'portal-app',
      client_secret: 'demo-portal-secret',
    });
    expect(claimsOf(r.json().access_token).entityId).toBe('m-1001');
  });

  it('answers invalid_scope for a scope value the platform does not know', async () => {
    expect(errorOf(await token({ grant_type: 'client_credentials', scope: 'profile payments:all', ...M1 }))).toEqual({
      status: 400,
      error: 'invalid_scope',
    });
  });

  it('answers unsupported_grant_type for unknown grants and for password outside the mTLS endpoint', async () => {
    expect(errorOf(await token({ grant_type: 'implicit', ...M1 }))).toEqual({
      status: 400,
      error: 'unsupported_grant_type',
    });
    expect(
      errorOf(
        await token({
          grant_type: 'password',
          username: 'staff1',
          password: 'demo-staff-password',
          client_id: 'powered-app',
        }),
      ),
    ).toEqual({
      status: 400,
      error: 'unsupported_grant_type',
    });
  });

  it('answers invalid_request without grant_type, with a repeated parameter, or with a JSON body', async () => {
    expect(errorOf(await token({ ...M1 }))).toEqual({ status: 400, error: 'invalid_request' });
    const repeated = await f.call('POST', TOKEN, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&grant_type=client_credentials&client_id=terminal-app-1001&client_secret=demo-secret-1001-change-me',
    });
    expect(errorOf(repeated)).toEqual({ status: 400, error: 'invalid_request' });
    const json = await f.call('POST', TOKEN, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', ...M1 }),
    });
    expect(errorOf(json)).toEqual({ status: 400, error: 'invalid_request' });
  });

  it('answers 404 for an unknown user domain and serves the realm token URL alike', async () => {
    const unknown = await f.form('/oauth2/v1/nobody/token', { grant_type: 'client_credentials', ...M1 });
    expect(unknown.status).toBe(404);
    const realm = remember(
      await f.form('/auth/realms/demo/protocol/openid-connect/token', { grant_type: 'client_credentials', ...M1 }),
    );
    expect(realm.status).toBe(200);
    expect(claimsOf(realm.json().access_token).entityId).toBe('m-1001');
    expect(
      (await f.form('/auth/realms/other/protocol/openid-connect/token', { grant_type: 'client_credentials', ...M1 }))
        .status,
    ).toBe(404);
  });
});

describe('refresh_token', () => {
  async function fresh(scope?: string): Promise<Record<string, unknown>> {
    const r = await token({ grant_type: 'client_credentials', ...M1, ...(scope ? { scope } : {}) });
    expect(r.status).toBe(200);
    return r.json();
  }

  it('rotates: the new refresh token works, the used one is invalid_grant', async () => {
    const first = await fresh();
    const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, ...M1 });
    expect(second.status).toBe(200);
    expect(second.json().refresh_token).not.toBe(first.refresh_token);
    expect(claimsOf(second.json().access_token).sub).toBe(claimsOf(first.access_token).sub);
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, ...M1 });
    expect(errorOf(reuse)).toEqual({ status: 400, error: 'invalid_grant' });
    const third = await token({
      grant_type: 'refresh_token',
      refresh_token: second.json().refresh_token as string,
      ...M1,
    });
    expect(third.status).toBe(200);
  });

  it('narrows the scope on request, keeps the original grant for later, and refuses widening with invalid_scope', async () => {
    const first = await fresh('profile email');
    const narrow = await token({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      scope: 'profile',
      ...M1,
    });
    expect(narrow.json().scope).toBe('profile');
    const wide = await token({
      grant_type: 'refresh_token',
      refresh_token: narrow.json().refresh_token as string,
      scope: 'profile email phone',
      ...M1,
    });
    expect(errorOf(wide)).toEqual({ status: 400, error: 'invalid_scope' });
    // The refused request did not consume the refresh token; omitting scope means the original grant.
    const again = await token({
      grant_type: 'refresh_token',
      refresh_token: narrow.json().refresh_token as string,
      ...M1,
    });
    expect(again.json().scope).toBe('profile email');
  });

  it('refuses a refresh token of another client, an access token and garbage with invalid_grant', async () => {
    const first = await fresh();
    for (const [rt, client] of [
      [first.refresh_token, M2],
      [first.access_token, M1],
      ['not-a-token', M1],
    ] as const) {
      expect(errorOf(await token({ grant_type: 'refresh_token', refresh_token: rt as string, ...client }))).toEqual({
        status: 400,
        error: 'invalid_grant',
      });
    }
    expect(errorOf(await token({ grant_type: 'refresh_token', ...M1 }))).toEqual({
      status: 400,
      error: 'invalid_request',
    });
  });

  it('refuses an expired refresh token with invalid_grant (platform clock)', async () => {
    const first = await fresh();
    f.platform.faults.clockOffsetMs = 601_000;
    try {
      expect(
        errorOf(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, ...M1 })),
      ).toEqual({
        status: 400,
        error: 'invalid_grant',
      });
    } finally {
      f.platform.faults.clockOffsetMs = 0;
    }
  });

  it('lets exactly one of several concurrent refreshes with the same token win, and counts it once', async () => {
    const first = await fresh();
    const before = (await f.call('GET', '/sim/control/auth/stats')).json<{ granted: { refresh_token: number } }>()
      .granted.refresh_token;
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        token({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, ...M1 }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 400 && r.json().error === 'invalid_grant')).toHaveLength(5);
    const stats = (await f.call('GET', '/sim/control/auth/stats')).json<{
      granted: Record<string, number>;
      refused: Record<string, number>;
    }>();
    expect(stats.granted.refresh_token).toBe(before + 1);
    expect(f.platform.auth.stats().granted.refresh_token).toBe(before + 1);
  });

  it('makes every refresh token invalid_grant after revoke-refresh-tokens', async () => {
    const a = await fresh();
    const b = await fresh();
    const revoked = await f.call('POST', '/sim/control/auth/revoke-refresh-tokens');
    expect(revoked.status).toBe(200);
    expect(revoked.json<{ revoked: number }>().revoked).toBeGreaterThanOrEqual(2);
    for (const rt of [a.refresh_token, b.refresh_token]) {
      expect(errorOf(await token({ grant_type: 'refresh_token', refresh_token: rt as string, ...M1 }))).toEqual({
        status: 400,
        error: 'invalid_grant',
      });
    }
    // Access tokens are not touched.
    expect(() => f.platform.auth.verifier.verifyBearer(`Bearer ${a.access_token as string}`, undefined)).not.toThrow();
  });
});

describe('client secret renewal (spec Other rules 6)', () => {
  it('refuses the old secret with invalid_client while tokens issued before stay valid until they expire', async () => {
    const client = { client_id: 'terminal-app-1002', client_secret: M2.client_secret };
    const before = (await token({ grant_type: 'client_credentials', ...client })).json();
    const renewed = await f.call('POST', '/sim/control/clients/terminal-app-1002/renew-secret');
    expect(renewed.status).toBe(200);
    const newSecret = renewed.json<{ clientSecret: string }>().clientSecret;
    seen.add(newSecret);
    expect(newSecret).not.toBe(M2.client_secret);

    expect(errorOf(await token({ grant_type: 'client_credentials', ...client }))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(
      errorOf(await token({ grant_type: 'refresh_token', refresh_token: before.refresh_token as string, ...client })),
    ).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect(f.platform.auth.verifier.verifyBearer(`Bearer ${before.access_token as string}`, undefined).entityId).toBe(
      'm-1002',
    );
    const after = await token({
      grant_type: 'client_credentials',
      client_id: 'terminal-app-1002',
      client_secret: newSecret,
    });
    expect(after.status).toBe(200);
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: before.refresh_token as string,
      client_id: 'terminal-app-1002',
      client_secret: newSecret,
    });
    expect(refreshed.status).toBe(200);

    // Programmatic renewal: the secret from the control route is obsolete in turn.
    const third = f.platform.auth.renewSecret('terminal-app-1002');
    seen.add(third);
    expect(
      errorOf(
        await token({ grant_type: 'client_credentials', client_id: 'terminal-app-1002', client_secret: newSecret }),
      ),
    ).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    // The old token still verifies until its exp (valid while the time is before exp).
    const exp = claimsOf(before.access_token).exp as number;
    try {
      setPlatformTime(f.platform, exp * 1000 - 1_500);
      expect(() =>
        f.platform.auth.verifier.verifyBearer(`Bearer ${before.access_token as string}`, undefined),
      ).not.toThrow();
      setPlatformTime(f.platform, exp * 1000);
      expect(() => f.platform.auth.verifier.verifyBearer(`Bearer ${before.access_token as string}`, undefined)).toThrow(
        /expired/,
      );
    } finally {
      f.platform.faults.clockOffsetMs = 0;
    }
  });

  it('answers 404 for renewing an unknown or public client', async () => {
    expect((await f.call('POST', '/sim/control/clients/nobody/renew-secret')).status).toBe(404);
    expect((await f.call('POST', '/sim/control/clients/powered-app/renew-secret')).status).toBe(404);
  });
});

describe('logs', () => {
  it('never carry a client secret, password or token', () => {
    expect(f.sink.lines.length).toBeGreaterThan(0);
    expect(f.sink.text()).toContain('token issued');
    expect(leakedSecrets(f.sink, seen)).toEqual([]);
  });
});
