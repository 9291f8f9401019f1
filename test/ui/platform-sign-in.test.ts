import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import { configSchema } from '../../src/config/schema.js';
import { testCerts } from '../helpers/certs.js';
import { testPlatformTimeZone, testSimProfile } from '../helpers/demo-platform.js';
import { call, untilTransaction } from '../helpers/http-client.js';
import { testLogger, type LogSink } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { ARTIFACTS, buildPage, launchChromium } from './browser.js';
import { DEMO_STAFF } from './staff.js';

/**
 * auth.mode custom_token walked on the counter page in headless Chromium against the
 * embedded demo platform (docs/platform-contract.md, "Tokens", custom-token flow): a terminal
 * whose certificate the platform does not know (no merchant credentials for it) has no
 * device token until the merchant signs in with the platform; "Sign in with the platform"
 * opens the realm's sign-in, the realm sends the browser back to the agent's callback, the
 * merchant is signed in on the counter and the agent holds a device token and takes a sale.
 */
const SECRET = 'demo-portal-secret';
let agent: RunningAgent;
let sink: LogSink;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cleanup: () => void;
const pageErrors: string[] = [];

beforeAll(async () => {
  buildPage();
  const tmp = tempDir('terminal-agent-custom-token-');
  cleanup = tmp.cleanup;
  const certs = testCerts();
  const config = configSchema.parse({
    environment: 'local',
    dataDir: join(tmp.dir, 'data'),
    // A certificate of the right CA whose serial number the platform has no terminal for.
    identity: { certFile: certs.unknownCert, keyFile: certs.unknownKey, caFile: certs.caCert },
    api: { port: 0 },
    sim: { apiPort: 0, mtlsPort: 0, seedFile: resolve('config/demo-seed.json'), profile: testSimProfile() },
    platform: { timeZone: testPlatformTimeZone() },
    devices: { simulate: true },
    auth: { mode: 'custom_token', customToken: { clientSecret: SECRET } },
  });
  const logged = testLogger('debug');
  sink = logged.sink;
  agent = await startAgent({ config, log: logged.log });
  browser = await launchChromium();
  // The demo platform's certificate is from the run's own CA, which Chromium does not know.
  context = await browser.newContext({ viewport: { width: 800, height: 480 }, ignoreHTTPSErrors: true });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  cleanup?.();
});

describe('custom_token mode on the counter page', () => {
  it('has no device token before the merchant signs in; the page offers the platform sign-in', async () => {
    expect(agent.auth.status()).toMatchObject({ mode: 'custom_token', signInRequired: true, hasToken: false });
    await page.goto(agent.url);
    await page.getByTestId('platform-sign-in').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'page-platform-sign-in-1-offer.png') });
  });

  it('a callback this page did not start is refused, and the page says so', async () => {
    await page.goto(`${agent.url}/platform-sign-in/callback?code=made-up-code&state=made-up-state`);
    await page.locator('[data-testid="sign-in-message"][data-reason="state_unknown"]').waitFor();
    await expect(page.getByTestId('sign-in-message').textContent()).resolves.toMatch(/not started on this counter/);
    expect(new URL(page.url()).search).toBe('');
    expect(agent.auth.status().hasToken).toBe(false);
  });

  it("walks the realm's sign-in and comes back signed in, with the agent authenticated by the custom-token call", async () => {
    await page.getByTestId('platform-sign-in').click();
    // The realm's own sign-in form (the demo platform's), on its https origin. Waited for by
    // the navigation: the counter page has a username field of its own (the staff sign-in).
    await page.waitForURL((u) => u.origin !== new URL(agent.url).origin);
    await page.locator('input[name="username"]').waitFor();
    expect(new URL(page.url()).pathname).toBe('/auth/realms/demo/protocol/openid-connect/auth');
    await page.locator('input[name="username"]').fill(DEMO_STAFF.username);
    await page.locator('input[name="password"]').fill(DEMO_STAFF.password);
    await page.screenshot({ path: join(ARTIFACTS, 'page-platform-sign-in-2-realm.png') });
    await page.locator('button[value="login"]').click();

    await page.getByTestId('clerk').waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(agent.url).origin);
    expect(new URL(page.url()).search).toBe('');
    await expect(page.getByTestId('clerk-name').textContent()).resolves.toBe('Sam Staff');
    await page.screenshot({ path: join(ARTIFACTS, 'page-platform-sign-in-3-counter.png') });

    await agent.settled;
    const st = agent.auth.status();
    expect(st).toMatchObject({ state: 'ready', hasToken: true, signInRequired: false });
    expect(st.tokens[0]).toMatchObject({ flow: 'custom_token', clientId: 'portal-app', merchantId: 'm-1001' });
    // Nothing the flow carried ends up in the log or on the page.
    const html = await page.content();
    expect(html).not.toMatch(/eyJ[A-Za-z0-9_-]+\./);
    expect(sink.text()).not.toContain(SECRET);
    expect(sink.text()).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/);
  });

  it('takes a sale with the device token the custom-token call gave', async () => {
    const auth = { authorization: `Bearer ${agent.localToken}` };
    const r = await call(agent.url, 'POST', '/api/v1/sales', {
      headers: auth,
      body: { method: 'card', amount: '4.20' },
    });
    expect(r.status, r.text).toBe(202);
    const id = r.json.transaction.clientTransactionId as string;
    await untilTransaction(agent.url, auth, id, 'approved', { everyMs: 100 });
    const t = (await call(agent.url, 'GET', `/api/v1/transactions/${id}`, { headers: auth })).json.transaction;
    expect(t.state, t.message).toBe('approved');
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(420);
    expect(pageErrors).toEqual([]);
  });
});
