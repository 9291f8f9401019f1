import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { AuthService, decodeJwtPayload, type AuthSettings } from '../../src/auth/index.js';
import { systemClock, type Clock } from '../../src/core/index.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import type { AuthStats } from '../../src/sim/platform/auth/index.js';
import { control, dispatchersOf, identityOf, startDemo, type Demo } from '../helpers/demo-platform.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * auth.mode custom_token (docs/platform-contract.md, "Tokens", custom-token flow) against the
 * demo platform in the run's profile: a terminal whose certificate the platform does not
 * know gets its device token after the merchant's sign-in through the realm's
 * authorization-code flow; the state is one-time and expires, the code is one-time.
 */
const CALLBACK = 'http://127.0.0.1:43210/platform-sign-in/callback';
const SECRET = 'demo-portal-secret';
const MERCHANT = { username: 'staff1', password: 'demo-staff-password' };

let demo: Demo;
const open: Array<{ auth: AuthService; dispatchers: HostDispatchers }> = [];

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
});

const settings = (signInMs = 60_000): AuthSettings => ({
  mode: 'custom_token',
  refreshRatio: 0.8,
  leewaySeconds: 30,
  backoffBaseMs: 20,
  backoffCapMs: 200,
  customToken: {
    realm: 'demo',
    clientId: 'portal-app',
    clientSecret: SECRET,
    deviceModel: 'terminal-agent',
    method: 'api',
    signInMs,
  },
});

/** A terminal the platform has no merchants for (the unknown certificate): only the custom-token flow lets it in. */
function service(clock?: Clock, signInMs?: number): AuthService {
  const identity = identityOf('unknown');
  const dispatchers = dispatchersOf(identity);
  const auth = new AuthService({
    identity: {
      serialNumber: identity.serialNumber,
      thumbprint: identity.thumbprint,
      notBefore: identity.notBefore,
      notAfter: identity.notAfter,
    },
    endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
    dispatchers,
    settings: settings(signInMs),
    log: demo.log,
    ...(clock !== undefined ? { clock } : {}),
  });
  open.push({ auth, dispatchers });
  return auth;
}

const stats = async (): Promise<AuthStats> => (await control(demo, 'GET', '/sim/control/auth/stats')) as AuthStats;

/**
 * What the merchant's browser does at the realm: posts the sign-in form with the
 * authorization request's parameters and follows nothing; answers the callback's query.
 */
async function signInAtRealm(
  authorizationUrl: string,
  who: { username: string; password: string } | 'deny' = MERCHANT,
): Promise<URLSearchParams> {
  const url = new URL(authorizationUrl);
  const form = new URLSearchParams(url.searchParams);
  if (who === 'deny') form.set('action', 'deny');
  else for (const [k, v] of Object.entries(who)) form.set(k, v);
  const res = await request(`${url.origin}${url.pathname}`, {
    method: 'POST',
    dispatcher: demo.controlDispatcher,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  await res.body.text();
  expect(res.statusCode).toBe(302);
  const location = new URL(String(res.headers.location));
  expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
  return location.searchParams;
}

const callbackOf = (q: URLSearchParams): { state?: string; code?: string; error?: string } => ({
  ...(q.get('state') !== null ? { state: q.get('state') as string } : {}),
  ...(q.get('code') !== null ? { code: q.get('code') as string } : {}),
  ...(q.get('error') !== null ? { error: q.get('error') as string } : {}),
});

describe('custom_token mode', () => {
  it('waits for the merchant, then signs in through the realm and gets a device token from the custom-token call', async () => {
    const auth = service();
    const signIn = auth.platformSignIn;
    if (signIn === undefined) throw new Error('no platform sign-in in custom_token mode');
    const started = auth.start();
    expect(auth.status()).toMatchObject({ mode: 'custom_token', signInRequired: true, hasToken: false });
    await expect(auth.tokenFor()).rejects.toMatchObject({ code: 'AUTH_SIGN_IN_REQUIRED' });
    const before = await stats();

    const authorizationUrl = new URL(signIn.begin(CALLBACK));
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(
      `${demo.apiUrl}/auth/realms/demo/protocol/openid-connect/auth`,
    );
    expect(Object.fromEntries([...authorizationUrl.searchParams].filter(([k]) => k !== 'state'))).toEqual({
      client_id: 'portal-app',
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid profile email',
    });
    expect(authorizationUrl.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const who = await signIn.complete(callbackOf(await signInAtRealm(authorizationUrl.toString())));
    expect(who).toEqual({
      username: 'staff1',
      name: 'Sam Staff',
      permissions: expect.arrayContaining(['payment:process']),
      locale: 'en-GB',
      zoneinfo: 'Europe/Berlin',
      dateTimeFormat: 'YYYY-MM-DDTHH:mm:ssZ',
    });
    expect(JSON.stringify(who)).not.toMatch(/eyJ/);
    await started;

    const st = auth.status();
    expect(st).toMatchObject({ state: 'ready', hasToken: true, signInRequired: false });
    expect(st.tokens[0]).toMatchObject({
      flow: 'custom_token',
      clientId: 'portal-app',
      state: 'valid',
      merchantId: 'm-1001',
    });
    // The device token names this terminal as the call asked: device_model, device_id (the certificate's serial number), method.
    const claims = decodeJwtPayload(await auth.tokenFor()) as Record<string, unknown>;
    expect(claims).toMatchObject({
      azp: 'portal-app',
      entityId: 'm-1001',
      device_type: 'terminal-agent',
      device_id: identityOf('unknown').serialNumber,
      method: 'api',
    });
    // The payment API takes it.
    demo.platform.context.tokens.verifyBearer(`Bearer ${await auth.tokenFor()}`, identityOf('unknown').thumbprint);
    const after = await stats();
    expect(after.granted.authorization_code - before.granted.authorization_code).toBe(1);
    expect(after.granted.custom_token - before.granted.custom_token).toBe(1);
    expect(demo.sink.text()).not.toContain(SECRET);
  });

  it('refuses a callback whose state it did not issue, before anything is exchanged; the real one still works', async () => {
    const auth = service();
    const signIn = auth.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const q = await signInAtRealm(signIn.begin(CALLBACK));
    const before = await stats();
    for (const state of ['forged-state', undefined]) {
      await expect(
        signIn.complete({ ...(state !== undefined ? { state } : {}), code: q.get('code') as string }),
      ).rejects.toMatchObject({
        code: 'API_SIGN_IN_FAILED',
        details: { reason: state === undefined ? 'state_missing' : 'state_unknown' },
      });
    }
    expect((await stats()).granted.authorization_code).toBe(before.granted.authorization_code);
    expect((await stats()).refused.authorization_code).toBe(before.refused.authorization_code);
    expect(signIn.signedIn).toBe(false);
    await signIn.complete(callbackOf(q));
    expect(signIn.signedIn).toBe(true);
  });

  it('a state is one-time: the same callback a second time is refused', async () => {
    const auth = service();
    const signIn = auth.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const q = await signInAtRealm(signIn.begin(CALLBACK));
    await signIn.complete(callbackOf(q));
    await expect(signIn.complete(callbackOf(q))).rejects.toMatchObject({ details: { reason: 'state_unknown' } });
  });

  it('a state expires: a callback after auth.customToken.signInMinutes is refused and nothing is exchanged', async () => {
    let offset = 0;
    const real = systemClock();
    const clock: Clock = { ...real, mono: () => real.mono() + offset };
    const auth = service(clock, 5_000);
    const signIn = auth.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const q = await signInAtRealm(signIn.begin(CALLBACK));
    offset = 5_000;
    const before = await stats();
    await expect(signIn.complete(callbackOf(q))).rejects.toMatchObject({
      code: 'API_SIGN_IN_FAILED',
      details: { reason: 'state_expired' },
    });
    expect((await stats()).granted.authorization_code).toBe(before.granted.authorization_code);
    expect(signIn.signedIn).toBe(false);
  });

  it('a code is one-time: replayed under a new state, the platform refuses it and nobody is signed in', async () => {
    const first = service();
    const firstSignIn = first.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const q = await signInAtRealm(firstSignIn.begin(CALLBACK));
    await firstSignIn.complete(callbackOf(q));

    const second = service();
    const signIn = second.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const state = new URL(signIn.begin(CALLBACK)).searchParams.get('state') as string;
    await expect(signIn.complete({ state, code: q.get('code') as string })).rejects.toMatchObject({
      code: 'API_SIGN_IN_FAILED',
      details: { reason: 'refused' },
    });
    expect(signIn.signedIn).toBe(false);
    expect(second.status().signInRequired).toBe(true);
  });

  it('a sign-in the merchant denied at the realm comes back with an error and gives no token', async () => {
    const auth = service();
    const signIn = auth.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const q = await signInAtRealm(signIn.begin(CALLBACK), 'deny');
    expect(q.get('code')).toBeNull();
    await expect(signIn.complete(callbackOf(q))).rejects.toMatchObject({ details: { reason: 'denied' } });
    expect(signIn.signedIn).toBe(false);
  });

  it('renews the merchant token with its refresh token; once that is refused, the merchant must sign in again', async () => {
    // The terminal's monotonic clock moved on by hand: its tokens run out without waiting.
    let offset = 0;
    const real = systemClock();
    const auth = service({ ...real, mono: () => real.mono() + offset });
    const signIn = auth.platformSignIn as NonNullable<AuthService['platformSignIn']>;
    const started = auth.start();
    await signIn.complete(callbackOf(await signInAtRealm(signIn.begin(CALLBACK))));
    await started;
    const before = await stats();
    // Past the merchant token's lifetime (300 s): the next device token needs a renewed merchant token.
    offset += 301_000;
    await auth.refreshNow();
    const after = await stats();
    expect(after.byEndpoint.oauth.granted.refresh_token - before.byEndpoint.oauth.granted.refresh_token).toBe(1);
    expect(after.granted.custom_token - before.granted.custom_token).toBe(1);
    expect(auth.status()).toMatchObject({ signInRequired: false, hasToken: true });

    await control(demo, 'POST', '/sim/control/auth/revoke-refresh-tokens');
    offset += 301_000;
    await expect(auth.refreshNow()).rejects.toMatchObject({ code: 'AUTH_SIGN_IN_REQUIRED' });
    expect(auth.status()).toMatchObject({ signInRequired: true });
    expect(auth.status().tokens[0]?.state).toBe('sign_in_required');
    // A new sign-in brings the device token back at once.
    await signIn.complete(callbackOf(await signInAtRealm(signIn.begin(CALLBACK))));
    await untilTrue('the device token back', () => auth.status().hasToken, { everyMs: 50 });
    expect(auth.status()).toMatchObject({ signInRequired: false, hasToken: true });
  });

  it('refuses to start without auth.customToken', () => {
    const identity = identityOf('unknown');
    expect(
      () =>
        new AuthService({
          identity: {
            serialNumber: identity.serialNumber,
            thumbprint: identity.thumbprint,
            notBefore: identity.notBefore,
            notAfter: identity.notAfter,
          },
          endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
          dispatchers: dispatchersOf(identity),
          settings: { ...settings(), customToken: undefined },
          log: demo.log,
        }),
    ).toThrow(/auth.customToken/);
  });
});
