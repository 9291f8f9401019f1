import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { describeProblems, layoutProblems } from './layout-check.js';
import { CLERK, FakeStaff, signInCookie } from './staff.js';
import { FakeReports } from './fake-reports.js';
import { journalRow } from '../payments/receipt-rows.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { call } from '../helpers/http-client.js';
import { pinnedCertificate, RegisterClient } from '../helpers/register-client.js';

/** The screens the counter runs on (docs/counter-page.md, "Local API and counter page"). */
const SIZES = [
  { name: '800x480', width: 800, height: 480 },
  { name: '1280x800', width: 1280, height: 800 },
  { name: '480x800', width: 480, height: 800 },
] as const;

/**
 * Every state of the counter page at every screen size, in real Chromium against the real
 * local API: no control leaves the viewport, is cut off or covered, overlaps another, or is
 * smaller than 44x44 CSS px (test/ui/layout-check.ts). A screenshot of each state and size
 * goes to test-artifacts/layout/<locale>/. The walk runs in English and in German (longer words).
 */
for (const locale of ['en-GB', 'de-DE']) {
  describe(`counter page: every screen (${locale})`, () => {
    let s: Started;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const reports = new FakeReports();

    /** Checks the state at each size (the state stays; only the viewport changes) and saves the screenshots. */
    async function everySize(state: string): Promise<void> {
      const found: string[] = [];
      for (const size of SIZES) {
        await page.setViewportSize({ width: size.width, height: size.height });
        // Two frames: the new size is laid out and painted.
        await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
        await page.screenshot({ path: join(ARTIFACTS, 'layout', locale, `${state}-${size.name}.png`) });
        for (const line of describeProblems(await layoutProblems(page))) found.push(`${size.name} ${line}`);
      }
      await page.setViewportSize({ width: 800, height: 480 });
      expect.soft(found, `${state}`).toEqual([]);
    }

    const lastSale = () => {
      const v = [...s.payments.views.values()].filter((x) => x.clientTransactionId.startsWith('T-')).at(-1);
      if (v === undefined) throw new Error('no sale started');
      return v;
    };
    const update = (id: string, state: string) =>
      s.bus.publish('transaction.updated', { clientTransactionId: id, kind: 'sale', status: state });
    async function startSale(method: string, amount: string): Promise<string> {
      await page.getByTestId('amount').fill(amount);
      await page.getByTestId(method).click();
      await page.getByTestId('start-sale').click();
      await page.getByTestId('sale-panel').waitFor();
      return lastSale().clientTransactionId;
    }

    beforeAll(async () => {
      buildPage();
      // The store-network listener on loopback: the registers panel shows its URL and fingerprint.
      s = await startApi({
        pageDirs: defaultPageDirs(),
        extra: { staff: new FakeStaff(), reports },
        config: {
          api: { port: 0, locale, lan: { enabled: true, host: '127.0.0.1', port: 0, hostNames: ['127.0.0.1'] } },
        },
      });
      for (const device of ['reader', 'display', 'scanner'] as const)
        s.bus.publish('device.status', { device, state: 'connected', model: 'SIM' });
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 800, height: 480 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(s.url);
      await page.getByTestId('sign-in').waitFor();
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
    });

    it('sign-in', async () => {
      await everySize('sign-in');
      await signInOnPage(page, CLERK);
      await page.locator('[data-testid="live-status"][data-connected="true"]').waitFor();
      await page.getByTestId('device-scanner').waitFor();
    });

    it("idle, with today's sales in the list", async () => {
      for (let i = 1; i <= 12; i++)
        s.payments.view({
          clientTransactionId: `L-${i}`,
          amount: 100 * i,
          state: i % 4 === 0 ? 'declined' : 'approved',
          maskedPan: '476173******0010',
          operator: 'clerk',
        });
      s.payments.view({ clientTransactionId: 'L-W', amount: 4990, state: 'approved', origin: 'web', method: 'card' });
      update('L-1', 'approved');
      await page.getByTestId('tx-L-12').waitFor();
      await everySize('idle');
    });

    for (const method of ['card', 'manual', 'moto', 'walletA-qr', 'walletA-scan', 'walletB-qr', 'walletB-scan']) {
      it(`method ${method} with its fields`, async () => {
        await page.getByTestId(`method-${method}`).click();
        await page.getByTestId('amount').fill('12.34');
        await everySize(`method-${method}`);
      });
    }

    it('error banner, with the MOTO fields', async () => {
      await page.getByTestId('method-moto').click();
      await page.getByTestId('amount').fill('12.345.6');
      await page.getByTestId('start-sale').click();
      await page.getByTestId('error').waitFor();
      await everySize('error-banner');
      await page.locator('#error-close').click();
    });

    it('merchant picker, with the MOTO fields and an error banner', async () => {
      s.merchants.list = [
        { merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true },
        { merchantName: 'Demo Books and Stationery', clientId: 'terminal-app-1002', default: false },
      ];
      s.bus.publish('auth.status', { state: 'ready', clientId: 'terminal-app-1001' });
      await page.getByTestId('merchant').waitFor();
      await page.getByTestId('method-moto').click();
      await page.getByTestId('amount').fill('');
      await page.getByTestId('start-sale').click();
      await page.getByTestId('error').waitFor();
      await everySize('merchant-picker');
      await page.locator('#error-close').click();
      s.merchants.list = [];
      s.bus.publish('auth.status', { state: 'ready', clientId: 'terminal-app-1001' });
      await page.getByTestId('merchant').waitFor({ state: 'hidden' });
    });

    it('card progress', async () => {
      const id = await startSale('method-card', '7.00');
      s.bus.publish('reader.progress', { clientTransactionId: id, step: 'pinRequested' });
      await page.locator('[data-testid="sale-progress"][data-step="pinRequested"]').waitFor();
      await everySize('card-progress');
      s.payments.views.set(id, { ...lastSale(), state: 'approved', maskedPan: '476173******0010' });
      update(id, 'approved');
      await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor();
      await everySize('outcome-approved');
      await page.getByTestId('sale-receipt').click();
      await page.locator('[data-testid="receipt"][data-loaded="customer"]').waitFor();
      await everySize('receipt-customer');
      await page.getByTestId('receipt-copy').click();
      await page.locator('[data-testid="receipt"][data-loaded="merchant"]').waitFor();
      await everySize('receipt-merchant');
      await page.getByTestId('receipt-close').click();
      await page.getByTestId('sale-done').click();
    });

    it('QR for the customer, then a decline with its reason', async () => {
      const id = await startSale('method-walletB-qr', '23.50');
      await page.locator('[data-testid="sale-qr"][src^="blob:"]').waitFor();
      await everySize('wallet-qr');
      s.payments.views.set(id, {
        ...lastSale(),
        state: 'declined',
        message: 'The customer cancelled the payment in the wallet app',
      });
      update(id, 'declined');
      await page.locator('[data-testid="sale-outcome"][data-state="declined"]').waitFor();
      await everySize('outcome-declined');
      await page.getByTestId('sale-done').click();
    });

    it('unknown outcome: the reversal under way, then its end', async () => {
      const id = await startSale('method-card', '9.00');
      s.payments.views.set(id, {
        ...lastSale(),
        state: 'reversing',
        message: 'the platform did not answer: the sale is being reversed, do not hand over the goods',
      });
      update(id, 'reversing');
      s.payments.view({
        clientTransactionId: `REV-${id}`,
        kind: 'cancel',
        relatedClientTransactionId: id,
        amount: 900,
        state: 'in_flight',
        attempts: 2,
      });
      await page.getByTestId('sale-hold-attempts').waitFor({ timeout: 10_000 });
      await everySize('unknown-outcome');
      s.payments.views.set(id, { ...lastSale(), state: 'reversed', message: 'reversed: nothing charged' });
      update(id, 'reversed');
      await page.locator('[data-testid="sale-hold"][data-state="reversed"]').waitFor();
      await everySize('unknown-outcome-reversed');
      // The final outcome offers its receipt, over the unknown-outcome screen.
      await page.getByTestId('sale-receipt').click();
      await page.locator('[data-testid="receipt"][data-loaded="customer"]').waitFor();
      await everySize('unknown-outcome-receipt');
      await page.getByTestId('receipt-close').click();
      await page.getByTestId('sale-done').click();
    });

    it('operations with confirmation, then a refusal with details', async () => {
      await page.getByTestId('tx-L-5').click();
      await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
      await page.getByTestId('tx-cancel').click();
      await page.getByTestId('tx-op-confirm').waitFor();
      await everySize('operations-confirm');
      s.payments.operationError = new AgentError(
        ErrorCodes.PAYMENT_NOT_SENT,
        'could not reach 127.0.0.1:8443 (ECONNREFUSED): nothing was cancelled',
      );
      await page.getByTestId('tx-op-confirm-yes').click();
      await page.locator('[data-testid="tx-op-message"].error').waitFor();
      await everySize('operations-refused');
      await page.getByTestId('tx-ops-close').click();
    });

    it('cancel or refund by web', async () => {
      await page.getByTestId('web-open').click();
      await page.getByTestId('web-panel').waitFor();
      await everySize('by-web');
      await page.getByTestId('web-close').click();
    });

    it('offline panel', async () => {
      const at = new Date().toISOString();
      s.offline.queue.push(
        {
          clientTransactionId: 'OQ-Q',
          amount: 700,
          currency: 'EUR',
          maskedPan: '541333******0004',
          state: 'queued',
          attempts: 0,
          storedAt: at,
        },
        {
          clientTransactionId: 'OQ-A',
          amount: 1234,
          currency: 'EUR',
          maskedPan: '476173******0010',
          state: 'needs_attention',
          attempts: 3,
          lastMessage: 'offline upload refused 3 times, last: merchant blocked',
          storedAt: at,
        },
        {
          clientTransactionId: 'OQ-D',
          amount: 1999,
          currency: 'EUR',
          maskedPan: '400000******0002',
          state: 'declined_after_upload',
          attempts: 1,
          lastMessage: 'declined after upload: Insufficient funds',
          storedAt: at,
        },
      );
      s.bus.publish('offline.levels', {});
      await page.getByTestId('offline-badge').click();
      await page.getByTestId('offline-item-OQ-A').waitFor();
      await everySize('offline-panel');
      await page.getByTestId('offline-close').click();
    });

    it('offline panel with more than a page', async () => {
      const at = new Date().toISOString();
      const before = s.offline.queue.length;
      for (let i = 0; i < 101; i++)
        s.offline.queue.push({
          clientTransactionId: `OQ-M${i}`,
          amount: 700,
          currency: 'EUR',
          maskedPan: '541333******0004',
          state: 'queued',
          attempts: 0,
          storedAt: at,
        });
      try {
        await page.getByTestId('offline-badge').click();
        await page.getByTestId('offline-more').scrollIntoViewIfNeeded();
        await everySize('offline-panel-more');
        await page.getByTestId('offline-close').click();
      } finally {
        s.offline.queue.length = before;
      }
    });

    it('header menu, end of day', async () => {
      const at = new Date().toISOString();
      reports.rows.set('E-1', journalRow({ clientTransactionId: 'E-1', amount: 1234, createdAt: at }));
      reports.rows.set(
        'E-2',
        journalRow({
          clientTransactionId: 'E-2',
          amount: 500,
          method: 'walletA',
          operator: 'trainee',
          merchantId: 'terminal-app-1002',
          createdAt: at,
        }),
      );
      reports.rows.set(
        'E-3',
        journalRow({
          clientTransactionId: 'E-3',
          kind: 'refund',
          amount: 200,
          relatedClientTransactionId: 'E-1',
          createdAt: at,
        }),
      );
      reports.rows.set(
        'E-4',
        journalRow({
          clientTransactionId: 'E-4',
          amount: 9900,
          currency: 'CHF',
          state: 'needs_attention',
          createdAt: at,
        }),
      );
      await page.getByTestId('menu-open').click();
      await page.getByTestId('menu').waitFor();
      await everySize('menu');
      await page.getByTestId('menu-eod').click();
      await page.locator('[data-testid="eod"][data-date]').waitFor();
      for (const d of await page.locator('#eod details').all()) await d.locator('summary').click();
      await everySize('end-of-day');
      await page.getByTestId('eod-close').click();
    });

    it('cash registers: the listener, a pairing code, a revoke to confirm', async () => {
      const cookie = await signInCookie(s.url, CLERK);
      const offer = await call(s.url, 'POST', '/api/v1/registers/pairing', { headers: { cookie }, body: {} });
      const { code, url, fingerprint } = offer.json.pairing as { code: string; url: string; fingerprint: string };
      const till = new RegisterClient(url, await pinnedCertificate(url, fingerprint));
      expect((await till.call('POST', '/api/v1/pairing', { code, name: 'Till 1 at the front door' })).status).toBe(201);
      await page.getByTestId('menu-open').click();
      await page.getByTestId('menu-registers').click();
      await page.locator('[data-testid="registers-list"] li[data-revoked="false"]').waitFor();
      await everySize('registers');
      await page.getByTestId('registers-pair').click();
      await page.getByTestId('pairing-code').waitFor();
      await everySize('registers-pairing-code');
      await page.locator('[data-testid^="register-revoke-"]').first().click();
      await page.getByTestId('register-confirm').waitFor();
      await everySize('registers-revoke-confirm');
      await page.getByTestId('register-confirm-no').click();
      await page.getByTestId('registers-close').click();
    });

    it('raised no script errors', () => {
      expect(errors).toEqual([]);
    });
  });
}
