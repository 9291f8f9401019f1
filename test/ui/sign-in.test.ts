import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { call, type Reply } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { CLERK, FakeStaff, TRAINEE, signInCookie } from './staff.js';

/** A TimeSource the test moves by hand: session timeouts are on the monotonic clock. */
function fakeTime(): { wall: () => number; mono: () => number; advance: (ms: number) => void } {
  let mono = 1_000;
  return { wall: () => Date.UTC(2026, 0, 1) + mono, mono: () => mono, advance: (ms) => (mono += ms) };
}

const MIN = 60_000;

/** No credential in an answer: neither the local token nor a cookie of any kind. */
function expectNoCredential(r: Reply, token: string, what: string): void {
  expect(r.text, what).not.toContain(token);
  expect(JSON.stringify(r.headers), what).not.toContain(token);
  expect(r.headers['set-cookie'], what).toBeUndefined();
}

describe('staff sign-in on the local API', () => {
  let s: Started;
  let staff: FakeStaff;
  const time = fakeTime();

  beforeAll(async () => {
    staff = new FakeStaff();
    s = await startApi({ pageDirs: defaultPageDirs(), extra: { staff, clock: time } });
  });
  afterAll(() => s?.close());

  it('hands out no credential before sign-in: the page, its assets and every unauthenticated answer', async () => {
    const page = await call(s.url, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="sign-in"');
    expectNoCredential(page, s.token, 'GET /');
    // Every file the page can load, by the names the server serves.
    const assets = new Set<string>();
    for (const dir of defaultPageDirs()) {
      try {
        for (const f of readdirSync(dir)) if (/^[a-z0-9-]+\.(js|css)$/.test(f)) assets.add(f);
      } catch {
        // dist/ui/page exists only after a build.
      }
    }
    expect(assets.has('app.js') || assets.has('styles.css')).toBe(true);
    for (const name of assets) {
      const r = await call(s.url, 'GET', `/assets/${name}`);
      expect(r.status, name).toBe(200);
      expectNoCredential(r, s.token, name);
    }
    const routes: Array<[string, string]> = [
      ['GET', '/session'],
      ['DELETE', '/session'],
      ['GET', '/favicon.ico'],
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/api/v1/status'],
      ['GET', '/api/v1/transactions'],
      ['GET', '/api/v1/events'],
      ['POST', '/api/v1/sales'],
      ['POST', '/api/v1/transactions/x/refund'],
      ['POST', '/api/v1/capture-all'],
      ['GET', '/nothing-here'],
    ];
    for (const [method, path] of routes) {
      const r = await call(s.url, method, path, method === 'POST' ? { body: {} } : {});
      expectNoCredential(r, s.token, `${method} ${path}`);
      if (path.startsWith('/api/')) {
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.json.error.code).toBe('API_UNAUTHORIZED');
      }
    }
    expect((await call(s.url, 'GET', '/session')).json).toEqual({
      signedIn: false,
      counter: {
        locale: 'en-GB',
        defaultCurrency: 'EUR',
        currencies: [{ code: 'EUR', digits: 2 }],
        outcomeSeconds: 60,
      },
    });
    // A made-up or a stolen-looking cookie is refused like none.
    const forged = await call(s.url, 'GET', '/api/v1/status', { headers: { cookie: `ta_session=${'A'.repeat(43)}` } });
    expect(forged.status).toBe(401);
    expect(s.payments.calls).toEqual([]);
  });

  it('refuses a wrong password with no cookie, and signs a clerk in with a session cookie only', async () => {
    const wrong = await call(s.url, 'POST', '/session', { body: { username: CLERK.username, password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('API_SIGN_IN_FAILED');
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const ok = await call(s.url, 'POST', '/session', { body: { username: CLERK.username, password: CLERK.password } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({
      signedIn: true,
      counter: {
        locale: 'en-GB',
        defaultCurrency: 'EUR',
        currencies: [{ code: 'EUR', digits: 2 }],
        outcomeSeconds: 60,
      },
      staff: {
        username: 'clerk',
        name: 'Casey Clerk',
        offline: false,
        can: { cancel: true, refund: true, captureAll: true, registers: true, refundByWeb: false, logLevel: false },
      },
    });
    const cookie = ok.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(/^ta_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect(cookie).not.toMatch(/Secure/);
    const id = cookie.split(';')[0]?.split('=')[1] ?? '';
    // The session id is only in the cookie, never in a body.
    expect(ok.text).not.toContain(id);
    expect(ok.text).not.toContain(s.token);
    const status = await call(s.url, 'GET', '/api/v1/status', { headers: { cookie: `ta_session=${id}` } });
    expect(status.status).toBe(200);
    expect(status.text).not.toContain(s.token);
    expect(
      (await call(s.url, 'GET', '/session', { headers: { cookie: `ta_session=${id}` } })).json.staff.username,
    ).toBe('clerk');
  });

  it('refuses a sign-in posted from another origin', async () => {
    const r = await call(s.url, 'POST', '/session', {
      headers: { origin: 'http://evil.example' },
      body: { username: CLERK.username, password: CLERK.password },
    });
    expect(r.status).toBe(403);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('ends a session after the idle time, counted from the last request', async () => {
    const cookie = await signInCookie(s.url, CLERK);
    const get = () => call(s.url, 'GET', '/api/v1/status', { headers: { cookie } });
    time.advance(14 * MIN);
    expect((await get()).status).toBe(200);
    time.advance(14 * MIN);
    expect((await get()).status).toBe(200);
    time.advance(15 * MIN);
    const ended = await get();
    expect(ended.status).toBe(401);
    expect(ended.json.error.message).toMatch(/session has ended/);
    time.advance(0);
    expect((await get()).status).toBe(401);
  });

  it('ends a busy session at its absolute limit', async () => {
    const cookie = await signInCookie(s.url, CLERK);
    const get = () => call(s.url, 'GET', '/api/v1/status', { headers: { cookie } });
    for (let elapsed = 0; elapsed < 12 * 60 * MIN - 10 * MIN; elapsed += 10 * MIN) {
      time.advance(10 * MIN);
      expect((await get()).status).toBe(200);
    }
    time.advance(10 * MIN);
    expect((await get()).status).toBe(401);
  });

  it('signs out: the cookie is cleared and no longer works, and the event stream closes', async () => {
    const cookie = await signInCookie(s.url, CLERK);
    const stream = await openStream(s.url, cookie);
    const out = await call(s.url, 'DELETE', '/session', { headers: { cookie } });
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']?.[0]).toMatch(/^ta_session=; .*Max-Age=0/);
    await stream.closed;
    expect((await call(s.url, 'GET', '/api/v1/status', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses cancel, refund, refund by web, capture-all and register pairing to a clerk without the permission, with 403', async () => {
    const cookie = await signInCookie(s.url, TRAINEE);
    const who = await call(s.url, 'GET', '/session', { headers: { cookie } });
    expect(who.json.staff.can).toEqual({
      cancel: false,
      refund: false,
      captureAll: false,
      registers: false,
      refundByWeb: false,
      logLevel: false,
    });
    const before = s.payments.calls.length;
    for (const [path, perm] of [
      ['/api/v1/transactions/t-1/cancel', 'payment:cancel'],
      ['/api/v1/transactions/t-1/refund', 'payment:refund'],
      ['/api/v1/transactions/t-1/refund-by-web', 'payment:cancel'],
      ['/api/v1/capture-all', 'payment:capture'],
      ['/api/v1/registers/pairing', 'payment:refund'],
    ] as const) {
      const r = await call(s.url, 'POST', path, { headers: { cookie }, body: {} });
      expect(r.status, path).toBe(403);
      expect(r.json.error.code).toBe('API_FORBIDDEN');
      expect(r.json.error.message).toContain(`trainee may not`);
      expect(r.json.error.message).toContain(perm);
    }
    expect(s.payments.calls.length).toBe(before);
    // Selling is not restricted.
    expect((await call(s.url, 'GET', '/api/v1/transactions', { headers: { cookie } })).status).toBe(200);
  });

  it('lets the clerk with the permission and the token callers through to the operation', async () => {
    const cookie = await signInCookie(s.url, CLERK);
    const before = s.payments.calls.length;
    const viaSession = await call(s.url, 'POST', '/api/v1/capture-all', { headers: { cookie }, body: {} });
    expect(viaSession.status).toBe(200);
    const viaToken = await call(s.url, 'POST', '/api/v1/capture-all', { headers: s.auth, body: {} });
    expect(viaToken.status).toBe(200);
    expect(s.payments.calls.length).toBe(before + 2);
  });
});

/** Opens GET /api/v1/events with the cookie; `closed` resolves when the server ends it. */
async function openStream(url: string, cookie: string): Promise<{ closed: Promise<void> }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/v1/events', url), { headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`events: ${res.statusCode}`));
      const closed = new Promise<void>((done) => {
        res.on('close', () => done());
        res.on('error', () => done());
      });
      res.resume();
      resolve({ closed });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the session check of an open event stream', () => {
  let s: Started | undefined;
  afterEach(() => s?.close());

  it('closes the stream once its session timed out', async () => {
    const time = fakeTime();
    s = await startApi({ extra: { staff: new FakeStaff(), clock: time, sessionCheckMs: 20 } });
    const cookie = await signInCookie(s.url, CLERK);
    const stream = await openStream(s.url, cookie);
    time.advance(16 * MIN);
    await stream.closed;
  });
});
