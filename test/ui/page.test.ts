import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/static-page.js';
import { ARTIFACTS, buildPage, launchChromium } from './browser.js';
import { startApi, type Started } from './start-api.js';

/** The counter page in real Chromium against the real local API and a fake payments engine. */
describe('counter page', () => {
  let s: Started;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    buildPage();
    s = await startApi({ pageDirs: defaultPageDirs() });
    s.bus.publish('device.status', { device: 'reader', state: 'connected', model: 'SIM-R1' });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      // 4xx answers the page provoked on purpose are JSON API errors; anything else is a broken page.
      if (r.status() >= 400 && !r.url().includes('/api/')) errors.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(s.url);
    await page.getByTestId('live-status').and(page.locator('[data-connected="true"]')).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('shows platform, devices and the offline queue', async () => {
    await expect(page.getByTestId('platform-status').textContent()).resolves.toBe('online');
    await page.getByTestId('device-reader').waitFor();
    await expect(page.getByTestId('device-reader').textContent()).resolves.toMatch(/reader ✓/);
    await expect(page.getByTestId('offline-badge').textContent()).resolves.toMatch(/offline 2\/500 · 40\.00 EUR/);
    await expect(page.getByTestId('offline-badge').getAttribute('title')).resolves.toMatch(/up to 250\.00 EUR per sale; at most 500 sales and 5000\.00 EUR/);
    await page.screenshot({ path: join(ARTIFACTS, 'page-idle.png') });
  });

  it('explains a mistyped amount', async () => {
    await page.getByTestId('amount').fill('12.345');
    await page.getByTestId('start-sale').click();
    await page.getByTestId('error').waitFor();
    await expect(page.getByTestId('error').textContent()).resolves.toMatch(/EUR has 2 decimals/);
    await page.screenshot({ path: join(ARTIFACTS, 'page-amount-error.png') });
    await page.getByTestId('amount').fill('');
  });

  it('runs a walletA QR sale to approved from live events', async () => {
    for (const key of ['1', '2', '.', '3', '4']) await page.locator(`#keypad [data-key="${key}"]`).click();
    await page.getByTestId('method-walletA-qr').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    await expect(page.getByTestId('sale-amount').textContent()).resolves.toBe('12.34 EUR');
    await expect(page.getByTestId('sale-progress').textContent()).resolves.toBe('Show the QR code to the customer');
    await page.locator('[data-testid="sale-qr"][src^="blob:"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'page-wallet-qr.png') });

    const sale = [...s.payments.views.values()].at(-1);
    if (!sale) throw new Error('no sale started');
    expect(s.payments.calls.find((c) => c.op === 'startSale')?.arg).toEqual({ method: 'walletA', scenario: 'ConsumerScan', amount: 1234, currency: 'EUR' });
    s.payments.views.set(sale.clientTransactionId, { ...sale, state: 'approved', platformStatus: 'Accepted' });
    s.bus.publish('transaction.updated', { clientTransactionId: sale.clientTransactionId, kind: 'sale', status: 'approved', platformEvent: { eventType: 'walletAPaymentResult' } });
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor();
    await expect(page.getByTestId('sale-outcome').textContent()).resolves.toBe('Approved');
    await page.screenshot({ path: join(ARTIFACTS, 'page-wallet-approved.png') });
    await page.getByTestId('sale-done').click();
    await page.getByTestId(`tx-${sale.clientTransactionId}`).waitFor();
  });

  it('shows card progress from the reader and a decline with its reason', async () => {
    await page.getByTestId('amount').fill('7.00');
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    const sale = [...s.payments.views.values()].at(-1);
    if (!sale) throw new Error('no sale started');
    s.bus.publish('reader.progress', { clientTransactionId: sale.clientTransactionId, step: 'pinRequested' });
    await page.getByTestId('sale-progress').and(page.locator('[data-step="pinRequested"]')).waitFor();
    await expect(page.getByTestId('sale-progress').textContent()).resolves.toBe('Customer enters the PIN');
    await page.screenshot({ path: join(ARTIFACTS, 'page-card-pin.png') });
    s.payments.views.set(sale.clientTransactionId, { ...sale, state: 'declined', message: 'Insufficient funds' });
    s.bus.publish('transaction.updated', { clientTransactionId: sale.clientTransactionId, kind: 'sale', status: 'declined' });
    await page.locator('[data-testid="sale-outcome"][data-state="declined"]').waitFor();
    await expect(page.getByTestId('sale-message').textContent()).resolves.toBe('Insufficient funds');
    await page.screenshot({ path: join(ARTIFACTS, 'page-card-declined.png') });
    await page.getByTestId('sale-done').click();
  });

  it('cancels a sale from today\'s list with the buttons the agent allows', async () => {
    const sale = s.payments.view({ clientTransactionId: 'P-1', amount: 500, state: 'approved', maskedPan: '476173******0010' });
    s.bus.publish('transaction.updated', { clientTransactionId: sale.clientTransactionId, kind: 'sale', status: 'approved' });
    await page.getByTestId('tx-P-1').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    await expect(page.getByTestId('tx-refund').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('tx-refund').getAttribute('title')).resolves.toBe('not captured yet');
    await page.screenshot({ path: join(ARTIFACTS, 'page-operations.png') });
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-message').filter({ hasText: 'Cancel 5.00 EUR: done' }).waitFor();
    expect(s.payments.calls.filter((c) => c.op === 'cancel').at(-1)).toEqual({ op: 'cancel', id: 'P-1', arg: {} });
    await page.getByTestId('tx-P-1-C').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'page-cancelled.png') });
  });

  it('raised no script errors', () => {
    expect(errors).toEqual([]);
  });
});
