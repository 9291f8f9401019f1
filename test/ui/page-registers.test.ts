import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { pinnedCertificate, RegisterClient } from '../helpers/register-client.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { CLERK, FakeStaff, TRAINEE } from './staff.js';
import { until } from '../helpers/wait.js';

/**
 * Cash registers on the counter page (docs/registers.md) in headless Chromium against the
 * real local API with its store-network listener on loopback: the listener's URL and
 * fingerprint; "Pair a register" shows the one-time code with its expiry counting down; a
 * register redeems the code read off the page and appears; a revoke asks first, then the
 * register's key stops working. A clerk without the permission has no registers item; with
 * the listener off the panel names api.lan.enabled.
 */
describe('counter page: cash registers', () => {
  let s: Started;
  let off: Started;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    buildPage();
    s = await startApi({
      pageDirs: defaultPageDirs(),
      extra: { staff: new FakeStaff() },
      config: { api: { port: 0, lan: { enabled: true, host: '127.0.0.1', port: 0, hostNames: ['127.0.0.1'] } } },
    });
    off = await startApi({ pageDirs: defaultPageDirs(), extra: { staff: new FakeStaff() } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    await signInOnPage(page, CLERK);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await off?.close();
  });

  async function openPanel(): Promise<void> {
    await page.getByTestId('menu-open').click();
    await page.getByTestId('menu-registers').click();
    await page.getByTestId('registers').waitFor();
  }

  it('shows the listener, pairs a register with the code shown, and revokes it after asking', async () => {
    const listed = await call(s.url, 'GET', '/api/v1/registers', { headers: s.auth });
    const lan = listed.json.lan as { url: string; fingerprint: string };
    await openPanel();
    await page.locator('[data-testid="registers-lan"][data-enabled="true"]').waitFor();
    await expect(page.getByTestId('registers-lan').textContent()).resolves.toContain(lan.url);
    await expect(page.getByTestId('registers-fingerprint').textContent()).resolves.toBe(lan.fingerprint);
    await expect(page.getByTestId('registers-list').textContent()).resolves.toBe('No register is paired.');

    await page.getByTestId('registers-pair').click();
    const code = (await page.getByTestId('pairing-code').textContent()) ?? '';
    expect(code).toMatch(/^\d{4} \d{4}$/);
    const first = Number(/Valid for (\d+) s/.exec((await page.getByTestId('pairing-expiry').textContent()) ?? '')?.[1]);
    expect(first).toBeGreaterThan(100);
    expect(first).toBeLessThanOrEqual(120);
    // The countdown goes down while the code is on offer.
    const secondsLeft = async (): Promise<number> =>
      Number(/(\d+) s/.exec((await page.getByTestId('pairing-expiry').textContent()) ?? '')?.[1]);
    await until('the expiry to count down', secondsLeft, (left) => left < first, { timeoutMs: 5_000, everyMs: 200 });
    await expect(
      page.getByTestId('registers-code').locator('[data-testid="registers-fingerprint"]').textContent(),
    ).resolves.toBe(lan.fingerprint);
    await page.screenshot({ path: join(ARTIFACTS, 'page-registers-pairing.png') });

    // The register redeems the code read off the screen, pinning the fingerprint shown.
    const till = new RegisterClient(lan.url, await pinnedCertificate(lan.url, lan.fingerprint));
    const paired = await till.call('POST', '/api/v1/pairing', { code, name: 'Till 1' });
    expect(paired.status).toBe(201);
    till.apiKey = paired.json.apiKey as string;
    const id = (paired.json.register as { id: string }).id;
    const row = page.getByTestId(`register-${id}`);
    await row.waitFor({ timeout: 10_000 });
    await expect(row.textContent()).resolves.toMatch(/Till 1.*paired .* by clerk/);
    await page.getByTestId('registers-message').filter({ hasText: 'The register is paired.' }).waitFor();
    await expect(page.getByTestId('registers-code').isVisible()).resolves.toBe(false);
    expect((await till.call('GET', '/api/v1/transactions')).status).toBe(200);

    // "No" revokes nothing; "Yes" revokes: the key stops working at once.
    await page.getByTestId(`register-revoke-${id}`).click();
    await expect(page.getByTestId('register-confirm').textContent()).resolves.toMatch(/Revoke Till 1\?/);
    await page.getByTestId('register-confirm-no').click();
    expect((await till.call('GET', '/api/v1/transactions')).status).toBe(200);
    await page.getByTestId(`register-revoke-${id}`).click();
    await page.getByTestId('register-confirm-yes').click();
    await page.locator(`[data-testid="register-${id}"][data-revoked="true"]`).waitFor();
    await expect(row.textContent()).resolves.toMatch(/revoked/);
    await expect(page.getByTestId(`register-revoke-${id}`).count()).resolves.toBe(0);
    expect((await till.call('GET', '/api/v1/transactions')).status).toBe(401);
    await page.screenshot({ path: join(ARTIFACTS, 'page-registers-revoked.png') });
    await page.getByTestId('registers-close').click();
  });

  it('offers no registers to a clerk without the permission', async () => {
    const other = await browser.newPage({ viewport: { width: 800, height: 480 } });
    other.on('pageerror', (e) => errors.push(e.message));
    await other.goto(s.url);
    await signInOnPage(other, TRAINEE);
    await other.getByTestId('menu-open').click();
    await other.getByTestId('menu-eod').waitFor();
    await expect(other.getByTestId('menu-registers').isVisible()).resolves.toBe(false);
    await other.close();
  });

  it('says which setting turns the listener on when it is off, and offers no pairing', async () => {
    await page.goto(off.url);
    await signInOnPage(page, CLERK);
    await openPanel();
    await page.locator('[data-testid="registers-lan"][data-enabled="false"]').waitFor();
    await expect(page.getByTestId('registers-lan').textContent()).resolves.toMatch(
      /listener is off.*set api\.lan\.enabled to true/,
    );
    await expect(page.getByTestId('registers-pair').isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'page-registers-off.png') });
  });

  it('raised no script errors', () => {
    expect(errors).toEqual([]);
  });
});
