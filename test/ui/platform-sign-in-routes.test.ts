import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { AgentError, ErrorCodes, systemClock } from '../../src/core/index.js';
import { testLogger } from '../helpers/log-sink.js';
import { Router } from '../../src/ui/local/router.js';
import { CALLBACK_PATH, registerPlatformSignInRoutes } from '../../src/ui/local/routes/platform-sign-in.js';
import { SessionStore } from '../../src/ui/local/session-store.js';
import type { PlatformSignInCallback, PlatformSignInSource, StaffView } from '../../src/ui/shared/staff-source.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

/**
 * The platform sign-in routes of the local API (auth.mode custom_token; src/ui/local/routes/platform-sign-in.ts)
 * over a fake sign-in source: the authorization URL for the page, the callback that signs the
 * merchant in on the counter or sends the page a reason, and what it never does (serve
 * another machine, log or show the code).
 */
const MERCHANT: StaffView = {
  username: 'staff1',
  name: 'Sam Staff',
  permissions: ['payment:process', 'payment:cancel', 'payment:refund'],
  offline: false,
};
const CODE = 'the-one-time-code-from-the-realm';

class FakePlatformSignIn implements PlatformSignInSource {
  readonly begun: string[] = [];
  readonly completed: PlatformSignInCallback[] = [];
  begin(redirectUri: string): string {
    this.begun.push(redirectUri);
    return `https://realm.example/auth?redirect_uri=${encodeURIComponent(redirectUri)}&state=good-state`;
  }
  async complete(callback: PlatformSignInCallback): Promise<StaffView> {
    this.completed.push(callback);
    if (callback.state !== 'good-state')
      throw new AgentError(ErrorCodes.API_SIGN_IN_FAILED, 'not ours', { details: { reason: 'state_unknown' } });
    return MERCHANT;
  }
}

let s: Started;
let plain: Started;
const source = new FakePlatformSignIn();

beforeAll(async () => {
  s = await startApi({ extra: { platformSignIn: source } });
  plain = await startApi();
});
afterAll(async () => {
  await s?.close();
  await plain?.close();
});

describe('POST /platform-sign-in', () => {
  it("answers the realm's authorization URL whose callback is this agent's, on the name the page was loaded from", async () => {
    const r = await call(s.url, 'POST', '/platform-sign-in', { body: {} });
    expect(r.status, r.text).toBe(200);
    const port = new URL(s.url).port;
    expect(source.begun.at(-1)).toBe(`http://127.0.0.1:${port}${CALLBACK_PATH}`);
    expect(r.json.authorizationUrl).toMatch(/^https:\/\/realm\.example\/auth\?/);
    const session = await call(s.url, 'GET', '/session');
    expect(session.json).toMatchObject({ signedIn: false, platformSignIn: true });
    expect(session.json.staff).toBeUndefined();
  });

  it('is refused from another web page (Origin) and where auth.mode is not custom_token', async () => {
    const foreign = await call(s.url, 'POST', '/platform-sign-in', {
      body: {},
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const off = await call(plain.url, 'POST', '/platform-sign-in', { body: {} });
    expect(off.status).toBe(401);
    expect(off.json.error.message).toMatch(/custom_token/);
    const plainSession = (await call(plain.url, 'GET', '/session')).json;
    expect(plainSession).toMatchObject({ signedIn: false });
    expect(plainSession.platformSignIn).toBeUndefined();
  });
});

describe('GET /platform-sign-in/callback', () => {
  it('signs the merchant in on the counter (session cookie) and goes back to the page; the code is never logged', async () => {
    const r = await call(s.url, 'GET', `${CALLBACK_PATH}?code=${CODE}&state=good-state&session_state=x`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    expect(r.headers['cache-control']).toBe('no-store');
    const cookie = String(r.headers['set-cookie']?.[0] ?? '');
    expect(cookie).toMatch(/^ta_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\//);
    expect(source.completed.at(-1)).toEqual({ state: 'good-state', code: CODE, error: undefined });
    const session = await call(s.url, 'GET', '/session', { headers: { cookie: cookie.split(';')[0] as string } });
    expect(session.json).toMatchObject({ signedIn: true, staff: { username: 'staff1', name: 'Sam Staff' } });
    expect(s.sink.text()).not.toContain(CODE);
    expect(r.text).not.toContain(CODE);
  });

  it('sends the page the reason of a refused callback, sets no cookie, and logs no code', async () => {
    const r = await call(s.url, 'GET', `${CALLBACK_PATH}?code=${CODE}x&state=forged`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/?sign-in=state_unknown');
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(s.sink.text()).not.toContain(`${CODE}x`);
  });

  it('takes no parameter given twice', async () => {
    const before = source.completed.length;
    const r = await call(s.url, 'GET', `${CALLBACK_PATH}?code=${CODE}&state=good-state&state=other`);
    expect(r.headers.location).toBe('/?sign-in=state_unknown');
    expect(source.completed.slice(before)).toEqual([{ state: undefined, code: CODE, error: undefined }]);
  });

  it('is served to loopback peers only, before the sign-in source is asked', async () => {
    const router = new Router();
    const fake = new FakePlatformSignIn();
    const config = configSchema.parse({ dataDir: '/nonexistent' });
    registerPlatformSignInRoutes(router, {
      config,
      log: testLogger().log,
      sessions: new SessionStore({ idleMs: 60_000, maxMs: 60_000 }, systemClock()),
      signIn: fake,
    });
    const match = router.match('GET', CALLBACK_PATH);
    for (const remoteAddress of ['10.0.0.7', '192.168.1.20', '::ffff:10.0.0.7', undefined]) {
      const req = { socket: { remoteAddress }, headers: {} } as unknown as IncomingMessage;
      await expect(
        Promise.resolve(
          match.handler({
            req,
            res: {} as ServerResponse,
            params: {},
            query: new URLSearchParams({ code: CODE, state: 'good-state' }),
          }),
        ),
      ).rejects.toMatchObject({ code: 'API_FORBIDDEN_ORIGIN' });
    }
    expect(fake.completed).toEqual([]);
  });
});
