import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthService,
  CredentialsDirectory,
  MerchantChoice,
  TokenEndpoint,
  TokenManager,
  CustomTokenSource,
  ClockSkewMeter,
  type AuthIdentity,
  type AuthSettings,
} from '../../src/auth/index.js';
import { EventBus } from '../../src/events/bus.js';
import type { AgentEvent } from '../../src/events/types.js';
import { decodeJwtPayload } from '../../src/auth/jwt.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import {
  control,
  dispatchersOf,
  grantStats,
  identityOf,
  startDemo,
  testSimProfile,
  type Demo,
} from '../helpers/demo-platform.js';
import { systemClock } from '../../src/core/index.js';
import { createServer } from 'node:net';
import { request } from 'undici';
import { vi } from 'vitest';
import type { SimProfileName } from '../../src/sim/platform/profile.js';
import type { AuthStats } from '../../src/sim/platform/auth/index.js';

const settings: AuthSettings = {
  mode: 'client_credentials',
  refreshRatio: 0.8,
  leewaySeconds: 30,
  backoffBaseMs: 20,
  backoffCapMs: 200,
};

let demo: Demo;
const open: Array<{ auth: AuthService; dispatchers: HostDispatchers }> = [];
/** The strict profile issues device tokens without cnf (docs/demo-platform.md, "Demo platform"). */
const strictRun = testSimProfile() === 'strict';

/** Switches the platform's answering profile through its control route. */
async function useProfile(profile: SimProfileName): Promise<void> {
  const res = await request(`${demo.apiUrl}/sim/control/profile`, {
    method: 'PUT',
    dispatcher: demo.controlDispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ profile }),
  });
  await res.body.text();
  if (res.statusCode !== 204) throw new Error(`profile ${profile}: ${res.statusCode}`);
}

/** Grant counters, also per endpoint (security host `oauth`, device token endpoint `mtls`). */
async function stats(): Promise<AuthStats> {
  return (await control(demo, 'GET', '/sim/control/auth/stats')) as AuthStats;
}

/** Renews a merchant's client secret at the platform; answers the new one. */
async function renewSecret(clientId: string): Promise<string> {
  return ((await control(demo, 'POST', `/sim/control/clients/${clientId}/renew-secret`)) as { clientSecret: string })
    .clientSecret;
}

beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await demo?.close();
});
afterEach(async () => {
  for (const o of open.splice(0)) {
    o.auth.stop();
    await o.dispatchers.close();
  }
  demo.platform.faults.clear();
  await useProfile(testSimProfile());
});

interface ServiceOptions {
  who?: Parameters<typeof identityOf>[0];
  bus?: EventBus;
  /** What the service believes its identity is (default: the certificate it presents). */
  identity?: AuthIdentity;
  endpoints?: { authUrl: string; deviceAuthUrl: string };
  timeouts?: Parameters<typeof dispatchersOf>[1];
}

function service(over: Partial<AuthSettings> = {}, o: ServiceOptions = {}): AuthService {
  const presented = identityOf(o.who ?? 'device');
  const dispatchers = dispatchersOf(presented, o.timeouts);
  const bus = o.bus;
  const auth = new AuthService({
    identity: o.identity ?? presented,
    endpoints: o.endpoints ?? { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
    dispatchers,
    settings: { ...settings, ...over },
    log: demo.log,
    ...(bus ? { bus } : {}),
    random: () => 0.5,
  });
  open.push({ auth, dispatchers });
  return auth;
}

describe('AuthService against the demo platform (client_credentials over mTLS)', () => {
  it('reads the merchant credentials, grants a token (certificate-bound unless strict) and logs who it runs as', async () => {
    const bus = new EventBus();
    const events: AgentEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const auth = service({}, { bus });
    await auth.start();
    const status = auth.status();
    expect(status.state).toBe('ready');
    expect(status.hasToken).toBe(true);
    expect(status.serialNumber).toBe('TA-0001');
    expect(status.merchants.map((m) => m.clientId)).toEqual(['terminal-app-1001', 'terminal-app-1002']);
    expect(status.merchants[0]?.default).toBe(true);
    expect(status.tokens[0]).toMatchObject({
      clientId: 'terminal-app-1001',
      state: 'valid',
      hasToken: true,
      merchantId: 'm-1001',
      bound: !strictRun,
    });
    const token = await auth.tokenFor();
    expect(decodeJwtPayload(token).cnf?.['x5t#S256']).toBe(strictRun ? undefined : identityOf('device').thumbprint);
    expect(events.some((e) => e.type === 'auth.status' && (e.data as { state: string }).state === 'valid')).toBe(true);
    const line = demo.sink.records().find((r) => r.msg?.toString().startsWith('authenticated: terminal TA-0001'));
    expect(line).toMatchObject({ clientId: 'terminal-app-1001', merchantName: 'Demo Coffee', merchantId: 'm-1001' });
    expect(demo.sink.text()).not.toContain(token);
    expect(demo.sink.text()).not.toContain('demo-secret-1001-change-me');
  });
});

const delta = (before: Awaited<ReturnType<typeof grantStats>>, after: Awaited<ReturnType<typeof grantStats>>) => ({
  granted: Object.fromEntries(
    Object.entries(after.granted)
      .map(([k, v]) => [k, v - (before.granted[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  ),
  refused: Object.fromEntries(
    Object.entries(after.refused)
      .map(([k, v]) => [k, v - (before.refused[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  ),
});

describe('grants', () => {
  it('password grant (staff log-in): the powered application, scope openid profile email, bound to the device unless strict', async () => {
    const before = await stats();
    const auth = service({
      mode: 'password',
      username: 'staff1',
      password: 'demo-staff-password',
      poweredClientId: 'powered-app',
    });
    await auth.start();
    const st = auth.status();
    expect(st.state).toBe('ready');
    expect(st.tokens[0]).toMatchObject({
      flow: 'password',
      clientId: 'powered-app',
      username: 'staff1',
      merchantId: 'm-1001',
      bound: !strictRun,
    });
    expect(st.tokens[0]?.scopes).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(delta(before, await stats())).toEqual({ granted: { password: 1 }, refused: {} });
    expect(demo.sink.text()).not.toContain('demo-staff-password');
  });

  it('password grant with a wrong password: AUTH_INVALID_GRANT, an error status, no secret in it', async () => {
    const auth = service({ mode: 'password', username: 'staff1', password: 'wrong-password' });
    await expect(auth.start()).rejects.toMatchObject({ code: 'AUTH_INVALID_GRANT' });
    const st = auth.status();
    expect(st.state).toBe('error');
    expect(st.tokens[0]).toMatchObject({ state: 'config_fault', lastError: { code: 'AUTH_INVALID_GRANT' } });
    expect(JSON.stringify(st)).not.toContain('wrong-password');
  });

  it('custom-token grant (demo): a merchant token from the realm exchanged for a device token bound to our certificate', async () => {
    const identity = identityOf('device');
    const dispatchers = dispatchersOf(identity);
    const endpoint = new TokenEndpoint({ authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl, dispatchers });
    const before = await stats();
    const manager = new TokenManager({
      source: new CustomTokenSource(
        {
          realm: 'demo',
          clientId: 'portal-app',
          merchantToken: async () =>
            (await endpoint.realmClientCredentials('demo', 'portal-app', 'demo-portal-secret')).response.access_token,
          device: { deviceModel: 'payment-terminal', deviceId: 'ldev-0001', method: 'api' },
        },
        endpoint,
      ),
      thumbprint: identity.thumbprint,
      refreshRatio: 0.8,
      leewaySeconds: 30,
      backoff: { baseMs: 10, capMs: 100 },
      slowRetryMs: 1_000,
      clock: systemClock(),
      skew: new ClockSkewMeter(30_000),
      log: demo.log,
    });
    try {
      await manager.start();
      expect(manager.status()).toMatchObject({
        flow: 'custom_token',
        state: 'valid',
        bound: true,
        merchantId: 'm-1001',
      });
      expect(delta(before, await stats()).granted).toEqual({ client_credentials: 1, custom_token: 1 });
    } finally {
      manager.stop();
      await dispatchers.close();
    }
  });
});

describe('refresh', () => {
  it('rotates the refresh token: each refresh uses the newest, the used one is refused afterwards', async () => {
    const identity = identityOf('device');
    const dispatchers = dispatchersOf(identity);
    const endpoint = new TokenEndpoint({ authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl, dispatchers });
    try {
      const granted = await endpoint.clientCredentials('terminal-app-1002', 'demo-secret-1002-change-me');
      const rt1 = granted.response.refresh_token as string;
      const refreshed = await endpoint.refresh(
        'demo-merchants',
        'terminal-app-1002',
        'demo-secret-1002-change-me',
        rt1,
      );
      expect(refreshed.response.refresh_token).toBeDefined();
      expect(refreshed.response.refresh_token).not.toBe(rt1);
      await expect(
        endpoint.refresh('demo-merchants', 'terminal-app-1002', 'demo-secret-1002-change-me', rt1),
      ).rejects.toMatchObject({ code: 'AUTH_INVALID_GRANT', status: 400 });
    } finally {
      await dispatchers.close();
    }
  });

  it("refreshes with the refresh_token grant at the security host's token endpoint of the user domain, never at the device token endpoint", async () => {
    const auth = service({ merchantId: 'terminal-app-1002' });
    await auth.start();
    const before = await stats();
    const first = await auth.tokenFor();
    await auth.refreshNow();
    await auth.refreshNow();
    const latest = await auth.tokenFor();
    expect(latest).not.toBe(first);
    const after = await stats();
    expect(delta(before, after)).toEqual({ granted: { refresh_token: 2 }, refused: {} });
    expect(after.byEndpoint.oauth.granted.refresh_token - before.byEndpoint.oauth.granted.refresh_token).toBe(2);
    expect(after.byEndpoint.mtls).toEqual(before.byEndpoint.mtls);
    expect(auth.status().tokens[0]?.counts).toMatchObject({ grants: 1, refreshes: 2, regrants: 0 });
    const line = demo.sink
      .records()
      .filter((r) => r.msg === 'token issued' && r.grantType === 'refresh_token')
      .at(-1);
    expect(line).toMatchObject({ endpoint: 'oauth', clientId: 'terminal-app-1002' });
  });

  it('password grant: refreshed at the user domain of its user_domain claim', async () => {
    const auth = service({
      mode: 'password',
      username: 'staff1',
      password: 'demo-staff-password',
      poweredClientId: 'powered-app',
    });
    await auth.start();
    const before = await stats();
    await auth.refreshNow();
    const after = await stats();
    expect(after.byEndpoint.oauth.granted.refresh_token - before.byEndpoint.oauth.granted.refresh_token).toBe(1);
    expect(after.byEndpoint.mtls).toEqual(before.byEndpoint.mtls);
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { grants: 1, refreshes: 1, regrants: 0 } });
  });

  it.each([
    ['unsupported_grant_type', 400],
    ['invalid_request', 400],
    ['unauthorized_client', 400],
  ])(
    'a refresh refused with %s (%i) is followed at once by a new grant, so the token never runs out',
    async (errorCode, status) => {
      const auth = service();
      await auth.start();
      const old = await auth.tokenFor();
      demo.platform.faults.set('oauth-token', { status, errorCode, errorMessage: 'refused', times: 1 });
      const before = await stats();
      await auth.refreshNow();
      const after = await stats();
      // The refused refresh never reached the handler (injected), so only the new grant counts.
      expect(delta(before, after)).toEqual({ granted: { client_credentials: 1 }, refused: {} });
      expect(after.byEndpoint.mtls.granted.client_credentials - before.byEndpoint.mtls.granted.client_credentials).toBe(
        1,
      );
      expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', hasToken: true, counts: { regrants: 1 } });
      expect(await auth.tokenFor()).not.toBe(old);
    },
  );

  it('concurrent callers after a 401 share one refresh', async () => {
    const auth = service();
    await auth.start();
    const token = await auth.tokenFor();
    const before = await stats();
    auth.invalidate(undefined, token);
    const tokens = await Promise.all(Array.from({ length: 20 }, () => auth.tokenFor()));
    for (let i = 0; i < 5; i++) auth.invalidate(undefined, token);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(token);
    expect(delta(before, await stats())).toEqual({ granted: { refresh_token: 1 }, refused: {} });
  });

  it('revoked refresh tokens: drops the refused one and grants again', async () => {
    const auth = service();
    await auth.start();
    await control(demo, 'POST', '/sim/control/auth/revoke-refresh-tokens');
    const before = await stats();
    await auth.refreshNow();
    expect(delta(before, await stats())).toEqual({ granted: { client_credentials: 1 }, refused: { refresh_token: 1 } });
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { regrants: 1 } });
  });
});

describe('secret renewal (docs/platform-contract.md, "Tokens")', () => {
  it('a refresh refused after a renewal re-reads the merchant credentials once and grants with the new secret', async () => {
    const auth = service({ merchantId: 'Demo Books' });
    await auth.start();
    const oldToken = await auth.tokenFor();
    const clientSecret = await renewSecret('terminal-app-1002');
    const before = await stats();
    await auth.refreshNow();
    expect(delta(before, await stats())).toEqual({ granted: { client_credentials: 1 }, refused: { refresh_token: 1 } });
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { credentialReloads: 1, regrants: 1 } });
    expect(await auth.tokenFor()).not.toBe(oldToken);
    expect(demo.sink.text()).not.toContain(clientSecret);
  });

  it('strict: a renewed secret answered 401 unauthorized_client re-reads the credentials and a token is obtained', async () => {
    await useProfile('strict');
    const auth = service();
    await auth.start();
    // Demo Books gets its first token only after its secret was renewed: the grant meets the old secret.
    const clientSecret = await renewSecret('terminal-app-1002');
    const before = await stats();
    const token = await auth.tokenFor('terminal-app-1002');
    expect(decodeJwtPayload(token).entityId).toBe('m-1002');
    expect(delta(before, await stats())).toEqual({
      granted: { client_credentials: 1 },
      refused: { client_credentials: 1 },
    });
    const st = auth.status().tokens.find((t) => t.clientId === 'terminal-app-1002');
    expect(st).toMatchObject({ state: 'valid', counts: { credentialReloads: 1, grants: 2 } });
    const refusal = demo.sink
      .records()
      .find((r) => r.msg === 'token request refused' && r.error === 'unauthorized_client');
    expect(refusal).toBeDefined();
    expect(demo.sink.text()).not.toContain(clientSecret);
  });

  it.each([
    [{ status: 401, errorCode: 'unauthorized_client', errorMessage: 'Invalid client or Invalid client credentials' }],
    [{ status: 401, rawBody: 'Unauthorized' }],
  ])('a grant refused with %j re-reads the merchant credentials and then gets a token', async (fault) => {
    demo.platform.faults.set('mtls-token', { ...fault, times: 1 });
    const auth = service();
    await auth.start();
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { credentialReloads: 1, grants: 2 } });
  });

  it('a client still refused after re-reading is a configuration fault: start fails clearly, slow retries go on', async () => {
    demo.platform.faults.set('mtls-token', {
      status: 401,
      errorCode: 'invalid_client',
      errorMessage: 'unknown client or wrong client secret',
    });
    const auth = service({ slowRetryMs: 60_000 });
    await expect(auth.start()).rejects.toMatchObject({ code: 'AUTH_INVALID_CLIENT' });
    const st = auth.status();
    expect(st.state).toBe('error');
    expect(st.tokens[0]).toMatchObject({
      state: 'config_fault',
      counts: { credentialReloads: 1, grants: 2 },
      lastError: { code: 'AUTH_INVALID_CLIENT' },
    });
    expect(Date.parse(st.tokens[0]?.nextRetryAt as string) - Date.now()).toBeGreaterThan(50_000);
    await expect(auth.tokenFor()).rejects.toMatchObject({ code: 'AUTH_INVALID_CLIENT' });
  });
});

describe('certificate change', () => {
  it('drops every token bound to the old certificate; the next call grants anew', async () => {
    const auth = service();
    await auth.start();
    const old = await auth.tokenFor();
    const before = await stats();
    auth.replaceIdentity(identityOf('device'));
    expect(auth.status()).toMatchObject({ hasToken: false, tokens: [] });
    const fresh = await auth.tokenFor();
    expect(fresh).not.toBe(old);
    expect(delta(before, await stats())).toEqual({ granted: { client_credentials: 1 }, refused: {} });
  });
});

describe('merchants', () => {
  it('keeps every merchant and selects per call by clientId, name or platform merchant id', async () => {
    const auth = service();
    await auth.start();
    const m2 = await auth.tokenFor('m-1002');
    expect(decodeJwtPayload(m2).entityId).toBe('m-1002');
    expect(decodeJwtPayload(await auth.tokenFor('Demo Books')).entityId).toBe('m-1002');
    expect(decodeJwtPayload(await auth.tokenFor('terminal-app-1001')).entityId).toBe('m-1001');
    expect(auth.merchants()).toEqual([
      {
        merchantName: 'Demo Coffee',
        userDomain: 'demo-merchants',
        clientId: 'terminal-app-1001',
        merchantId: 'm-1001',
        default: true,
      },
      {
        merchantName: 'Demo Books',
        userDomain: 'demo-merchants',
        clientId: 'terminal-app-1002',
        merchantId: 'm-1002',
        default: false,
      },
    ]);
    await expect(auth.tokenFor('m-9999')).rejects.toMatchObject({ code: 'AUTH_NO_MERCHANT' });
  });

  it('refuses a configured merchant the terminal does not serve, naming the ones it does', async () => {
    const auth = service({ merchantId: 'Nobody Shop' });
    const err = await auth.start().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'AUTH_NO_MERCHANT' });
    expect((err as Error).message).toContain('Demo Coffee [terminal-app-1001]');
  });
});

describe('refusals of the device', () => {
  it('unknown terminal (TA-9999): AUTH_UNKNOWN_TERMINAL and an error status', async () => {
    const auth = service({}, { who: 'unknown' });
    await expect(auth.start()).rejects.toMatchObject({ code: 'AUTH_UNKNOWN_TERMINAL', status: 403 });
    expect(auth.status()).toMatchObject({
      state: 'error',
      serialNumber: 'TA-9999',
      lastError: { code: 'AUTH_UNKNOWN_TERMINAL' },
    });
  });

  it('expired device certificate: refused before any request goes out', async () => {
    const before = await stats();
    const auth = service({}, { who: 'expired' });
    await expect(auth.start()).rejects.toMatchObject({ code: 'CERT_EXPIRED' });
    expect(auth.status()).toMatchObject({ state: 'error', lastError: { code: 'CERT_EXPIRED' } });
    expect(await stats()).toEqual(before);
  });

  it('expired device certificate the agent believes valid (wrong clock): the platform refuses it, AUTH_CERT_REFUSED', async () => {
    const expired = identityOf('expired');
    const auth = service(
      {},
      { who: 'expired', identity: { serialNumber: expired.serialNumber, thumbprint: expired.thumbprint } },
    );
    await expect(auth.start()).rejects.toMatchObject({ code: 'AUTH_CERT_REFUSED', category: 'auth' });
  });

  it('certificate from a foreign CA: AUTH_CERT_REFUSED', async () => {
    const auth = service({}, { who: 'foreign' });
    await expect(auth.start()).rejects.toMatchObject({ code: 'AUTH_CERT_REFUSED' });
  });

  it('the device token endpoint closing the connection of a refused certificate is reported with a certificate hint', async () => {
    const expired = identityOf('expired');
    const dispatchers = dispatchersOf(expired);
    try {
      const endpoint = new TokenEndpoint({ authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl, dispatchers });
      const err = await endpoint.clientCredentials('terminal-app-1001', 'x').catch((e: unknown) => e);
      expect(err).toMatchObject({ category: 'network', outcomeUnknown: true });
      expect((err as Error).message).toMatch(/refusing the device certificate/);
    } finally {
      await dispatchers.close();
    }
  });

  it('a token whose cnf is not our certificate: AUTH_BINDING_MISMATCH and an error status (standard: tokens carry cnf)', async () => {
    await useProfile('standard');
    // The token is fetched over TA-0001's certificate while the service expects TA-9999's thumbprint.
    const other = identityOf('unknown');
    const auth = service({}, { identity: { serialNumber: 'TA-0001', thumbprint: other.thumbprint } });
    await expect(auth.start()).rejects.toMatchObject({ code: 'AUTH_BINDING_MISMATCH' });
    const st = auth.status();
    expect(st.state).toBe('error');
    expect(st.tokens[0]).toMatchObject({
      state: 'binding_mismatch',
      hasToken: false,
      lastError: { code: 'AUTH_BINDING_MISMATCH' },
    });
  });
});

describe('strict profile: device tokens without cnf', () => {
  it.each([
    ['client_credentials', {}],
    [
      'password',
      {
        mode: 'password' as const,
        username: 'staff1',
        password: 'demo-staff-password',
        poweredClientId: 'powered-app',
      },
    ],
  ])(
    '%s: a token without cnf is accepted, the agent becomes ready and says the token is not bound',
    async (_flow, over) => {
      await useProfile('strict');
      const auth = service(over);
      await auth.start();
      const st = auth.status();
      expect(st).toMatchObject({ state: 'ready', hasToken: true });
      expect(st.tokens[0]).toMatchObject({ state: 'valid', hasToken: true, bound: false, merchantId: 'm-1001' });
      const token = await auth.tokenFor();
      expect(decodeJwtPayload(token).cnf).toBeUndefined();
      expect(decodeJwtPayload(token).scope?.split(' ')).not.toContain('auth');
      // The payment API accepts it over the device's connection.
      demo.platform.context.tokens.verifyBearer(`Bearer ${token}`, identityOf('device').thumbprint);
    },
  );

  it('the device token endpoint refuses refresh_token with unsupported_grant_type; the agent never sends it there', async () => {
    await useProfile('strict');
    const auth = service();
    await auth.start();
    const before = await stats();
    await auth.refreshNow();
    const after = await stats();
    expect(after.byEndpoint.mtls).toEqual(before.byEndpoint.mtls);
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { refreshes: 1, regrants: 0 } });
  });
});

describe('platform down, slow, failing', () => {
  it('platform down: keeps retrying with backoff and says so in status until stopped', async () => {
    const closed = await closedPort();
    const auth = service(
      {},
      { endpoints: { authUrl: `https://127.0.0.1:${closed}`, deviceAuthUrl: `https://127.0.0.1:${closed}` } },
    );
    const started = auth.start();
    await vi.waitFor(() => expect(auth.status().lastError?.code).toBe('PLATFORM_NETWORK'), { timeout: 5_000 });
    expect(auth.status()).toMatchObject({ state: 'degraded', hasToken: false });
    auth.stop();
    await expect(started).rejects.toMatchObject({ code: 'AUTH_STOPPED' });
  });

  it('5xx with Retry-After from the token endpoint, then recovery', async () => {
    demo.platform.faults.set('mtls-token', { status: 503, times: 2, retryAfterSeconds: 0 });
    const auth = service();
    await auth.start();
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { failures: 2 } });
  });

  it('slow token endpoint against a short headers timeout: a timeout, then a retry that gets through', async () => {
    demo.platform.faults.set('mtls-token', { latencyMs: 1_500, times: 1 });
    const auth = service({}, { timeouts: { connectTimeoutMs: 2_000, headersTimeoutMs: 500, bodyTimeoutMs: 500 } });
    await auth.start();
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { failures: 1 } });
    expect(demo.sink.records().some((r) => r.code === 'PLATFORM_TIMEOUT')).toBe(true);
  });

  it('connection dropped by the token endpoint, then recovery', async () => {
    demo.platform.faults.set('mtls-token', { drop: 'before', times: 1 });
    const auth = service();
    await auth.start();
    expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { failures: 1 } });
  });

  it('measures the clock skew against the platform from Date and iat', async () => {
    demo.platform.faults.clockOffsetMs = 120_000;
    const auth = service();
    await auth.start();
    const skew = auth.status().clockSkew;
    expect(Math.abs((skew?.dateHeaderMs ?? 0) - 120_000)).toBeLessThan(2_000);
    expect(Math.abs((skew?.iatMs ?? 0) - 120_000)).toBeLessThan(2_000);
    expect(skew?.exceedsLeeway).toBe(true);
    expect(auth.status()).toMatchObject({ state: 'degraded', hasToken: true });
  });

  it("knows the platform's clock (the event relay judges QR expiry on it): a terminal 10 minutes ahead reads the platform's time, never later than it", async () => {
    demo.platform.faults.clockOffsetMs = -600_000;
    const auth = service();
    expect(auth.platformNow()).toBeUndefined();
    await auth.start();
    const platform = demo.platform.context.now();
    const known = auth.platformNow();
    expect(known).toBeDefined();
    // Whole seconds written before the answer left: up to a second and the transit behind, never ahead.
    expect(known as number).toBeLessThanOrEqual(platform);
    expect(platform - (known as number)).toBeLessThan(2_500);
    expect(Date.now() - (known as number)).toBeGreaterThan(590_000);
  });
});

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('short-lived tokens (accessTokenSeconds: 2)', () => {
  it('refreshes by itself before expiry on the real monotonic clock, and every call finds a valid token', async () => {
    const short = await startDemo({ accessTokenSeconds: 2 });
    const identity = identityOf('device');
    const dispatchers = dispatchersOf(identity);
    const auth = new AuthService({
      identity,
      endpoints: { authUrl: short.apiUrl, deviceAuthUrl: short.mtlsUrl },
      dispatchers,
      settings,
      log: short.log,
    });
    try {
      await auth.start();
      const first = await auth.tokenFor();
      await vi.waitFor(async () => expect((await grantStats(short)).granted.refresh_token).toBeGreaterThanOrEqual(2), {
        timeout: 10_000,
        interval: 200,
      });
      const later = await auth.tokenFor();
      expect(later).not.toBe(first);
      // Each token handed out is one the platform still accepts.
      short.platform.context.tokens.verifyBearer(`Bearer ${later}`, identity.thumbprint);
      expect(auth.status().tokens[0]).toMatchObject({ state: 'valid', counts: { grants: 1 } });
    } finally {
      auth.stop();
      await dispatchers.close();
      await short.close();
    }
  });
});

describe('checking a merchant before a sale', () => {
  it('passes any merchant while the credentials were never read, refuses an unknown one once they are, passes a known one', async () => {
    const auth = service();
    // Not started: the platform has not been asked yet (as when it is unreachable since start).
    await expect(auth.checkMerchant('m-9999')).resolves.toBeUndefined();
    await auth.start();
    await expect(auth.checkMerchant('m-1002')).resolves.toBeUndefined();
    await expect(auth.checkMerchant('m-9999')).rejects.toMatchObject({ code: 'AUTH_NO_MERCHANT' });
  });
});

describe('a merchant that cannot be checked while the platform is unreachable (docs/payments.md, "Offline card sale and upload")', () => {
  it('credentials never read: every token request fails as the platform unreachable (transient), never AUTH_NO_MERCHANT', async () => {
    const closed = await closedPort();
    const auth = service(
      {},
      { endpoints: { authUrl: `https://127.0.0.1:${closed}`, deviceAuthUrl: `https://127.0.0.1:${closed}` } },
    );
    for (const merchant of [undefined, 'm-1002', 'Demo Books', 'm-nobody']) {
      const err = await auth.tokenFor(merchant).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, String(merchant)).toMatchObject({ category: 'network', transient: true, code: 'PLATFORM_NETWORK' });
    }
    await expect(auth.checkMerchant('m-nobody')).resolves.toBeUndefined();
  });

  it('the default merchant asked of a directory never read: the platform unreachable, not AUTH_NO_MERCHANT', async () => {
    const closed = await closedPort();
    const identity = identityOf('device');
    const dispatchers = dispatchersOf(identity);
    try {
      const directory = new CredentialsDirectory({
        authUrl: `https://127.0.0.1:${closed}`,
        dispatchers,
        clock: systemClock(),
        log: demo.log,
        merchantId: undefined,
        serialNumber: () => identity.serialNumber,
        guard: () => {},
      });
      const endpoint = new TokenEndpoint({
        authUrl: `https://127.0.0.1:${closed}`,
        deviceAuthUrl: `https://127.0.0.1:${closed}`,
        dispatchers,
      });
      const choice = new MerchantChoice({
        settings,
        directory,
        endpoint,
        guard: () => {},
        newManager: () => {
          throw new Error('no manager before the credentials are read');
        },
      });
      expect(() => choice.defaultManager()).toThrow(
        expect.objectContaining({
          category: 'network',
          code: 'PLATFORM_NETWORK',
          message: expect.stringMatching(/not been read yet/),
        }),
      );
      await expect(directory.load()).rejects.toMatchObject({ code: 'PLATFORM_NETWORK' });
      // After a failed read, the words say why.
      expect(() => choice.defaultManager()).toThrow(
        expect.objectContaining({
          category: 'network',
          message: expect.stringMatching(/not been read yet: could not reach/),
        }),
      );
    } finally {
      await dispatchers.close();
    }
  });

  it("credentials read, a merchant's platform id not learnt, the token endpoint unreachable: transient, never AUTH_NO_MERCHANT; once reachable, an unknown merchant is refused", async () => {
    const closed = await closedPort();
    const auth = service({}, { endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: `https://127.0.0.1:${closed}` } });
    const err = await auth.tokenFor('m-1002').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(auth.merchants()).toHaveLength(2);
    expect(err).toMatchObject({
      category: 'network',
      transient: true,
      message: expect.stringMatching(/^merchant m-1002 cannot be checked now: /),
    });
    await expect(auth.checkMerchant('m-1002')).rejects.toMatchObject({ category: 'network' });
    await expect(auth.checkMerchant('m-1002')).rejects.not.toMatchObject({ code: 'AUTH_NO_MERCHANT' });
    // A merchant on the list by client id or name is known without its platform id.
    await expect(auth.checkMerchant('terminal-app-1002')).resolves.toBeUndefined();
    await expect(auth.checkMerchant('Demo Books')).resolves.toBeUndefined();

    // Tokens refused outright (not out of reach): no id can be learnt, ever; a merchant not on the list is refused.
    demo.platform.faults.set('mtls-token', { status: 403 });
    const refusing = service();
    await expect(refusing.tokenFor('m-1002')).rejects.toMatchObject({ code: 'AUTH_NO_MERCHANT' });
    demo.platform.faults.clear();

    // Reachable: every merchant's id is learnt, and one not among them is refused.
    const reachable = service();
    await expect(reachable.tokenFor('m-1002')).resolves.toEqual(expect.any(String));
    await expect(reachable.tokenFor('m-nobody')).rejects.toMatchObject({ code: 'AUTH_NO_MERCHANT' });
  });
});

describe('the merchant credentials read again after a read the certificate guard refused', () => {
  it('a guard that throws at once does not stick: the next read goes out', async () => {
    const identity = identityOf('device');
    const dispatchers = dispatchersOf(identity);
    try {
      let expired = true;
      const directory = new CredentialsDirectory({
        authUrl: demo.apiUrl,
        dispatchers,
        clock: systemClock(),
        log: demo.log,
        merchantId: undefined,
        serialNumber: () => identity.serialNumber,
        guard: () => {
          if (expired) throw new Error('certificate outside its validity');
        },
      });
      await expect(directory.load()).rejects.toThrow(/outside its validity/);
      expired = false;
      await directory.load();
      expect(directory.merchants?.map((m) => m.clientId)).toEqual(['terminal-app-1001', 'terminal-app-1002']);
    } finally {
      await dispatchers.close();
    }
  });
});
