import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { CLERK, FakeStaff } from './staff.js';
import { startApi, type Started } from '../helpers/local-api.js';

/** The counter page in real Chromium against the real local API and a fake payments engine. */
describe('counter page', () => {
  let s: Started;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    buildPage();
    s = await startApi({ pageDirs: defaultPageDirs(), extra: { staff: new FakeStaff() } });
    s.bus.publish('device.status', { device: 'reader', state: 'connected', model: 'SIM-R1' });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      // 4xx answers the page provoked on purpose are JSON API errors; anything else is a broken page.
      if (r.status() >= 400 && !r.url().includes('/api/')) errors.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(s.url);
    await signInOnPage(page, CLERK);
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
    await expect(page.getByTestId('offline-badge').textContent()).resolves.toMatch(/^to send: 2 · 40\.00 EUR$/);
    await expect(page.getByTestId('offline-badge').getAttribute('title')).resolves.toMatch(
      /up to 250\.00 EUR per sale; at most 500 sales and 5,000\.00 EUR/,
    );
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
    expect(s.payments.calls.find((c) => c.op === 'startSale')?.arg).toEqual({
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 1234,
      currency: 'EUR',
    });
    s.payments.views.set(sale.clientTransactionId, { ...sale, state: 'approved', platformStatus: 'Accepted' });
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'approved',
      platformEvent: { eventType: 'walletAPaymentResult' },
    });
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor();
    await expect(page.getByTestId('sale-outcome').textContent()).resolves.toBe('Approved and paid');
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
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'declined',
    });
    await page.locator('[data-testid="sale-outcome"][data-state="declined"]').waitFor();
    // The headline is the catalog's; the agent's reason is the detail behind "details".
    await expect(page.getByTestId('sale-outcome').textContent()).resolves.toBe('Declined');
    await expect(page.getByTestId('sale-details').locator('.detail-text').textContent()).resolves.toBe(
      'Insufficient funds',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'page-card-declined.png') });
    await page.getByTestId('sale-done').click();
  });

  it("cancels a sale from today's list with the buttons the agent allows", async () => {
    const sale = s.payments.view({
      clientTransactionId: 'P-1',
      amount: 500,
      state: 'approved',
      maskedPan: '476173******0010',
    });
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'approved',
    });
    await page.getByTestId('tx-P-1').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    await expect(page.getByTestId('tx-refund').isDisabled()).resolves.toBe(true);
    // Why not is on the screen under the buttons (no hover on a touch screen), not a title.
    await expect(page.getByTestId('tx-refund').getAttribute('title')).resolves.toBeNull();
    await expect(page.getByTestId('tx-op-reasons').locator('li[data-op="refund"]').textContent()).resolves.toBe(
      'Refund: not captured yet',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'page-operations.png') });
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page.getByTestId('tx-op-message').filter({ hasText: 'Cancel 5.00 EUR: done' }).waitFor();
    expect(s.payments.calls.filter((c) => c.op === 'cancel').at(-1)).toEqual({ op: 'cancel', id: 'P-1', arg: {} });
    await page.getByTestId('tx-P-1-C').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'page-cancelled.png') });
  });

  it('a cancel the platform completes later shows pending, in the message and in the list', async () => {
    const sale = s.payments.view({
      clientTransactionId: 'P-2',
      amount: 700,
      state: 'approved',
      maskedPan: '476173******0010',
    });
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'approved',
    });
    s.payments.operationState = 'pending';
    try {
      await page.getByTestId('tx-P-2').click();
      await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
      await page.getByTestId('tx-cancel').click();
      await page.getByTestId('tx-op-confirm-yes').click();
      await page
        .getByTestId('tx-op-message')
        .filter({ hasText: 'Cancel 7.00 EUR: pending at the platform, the list shows when it is final' })
        .waitFor();
      await page.locator('[data-testid="tx-P-2-C"][data-state="pending"]').waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'page-cancel-pending.png') });
      // Its result comes later and says it failed: the message where the clerk acted says nothing was cancelled, the agent's reason behind "details".
      const reason =
        'the platform reports the cancel failed (Cancel failed at the wallet provider): nothing was cancelled; 7.00 EUR can be cancelled again';
      s.payments.view({
        clientTransactionId: 'P-2-C',
        kind: 'cancel',
        relatedClientTransactionId: 'P-2',
        amount: 700,
        state: 'failed',
        platformStatus: 'cancelled',
        message: reason,
      });
      s.bus.publish('transaction.updated', {
        clientTransactionId: 'P-2-C',
        kind: 'cancel',
        status: 'failed',
        message: reason,
      });
      await page
        .locator('[data-testid="tx-op-message"][data-result="failed"]')
        .filter({ hasText: 'Cancel not done: nothing cancelled' })
        .waitFor();
      await expect(page.getByTestId('tx-op-details').locator('.detail-text').textContent()).resolves.toBe(reason);
      await page.locator('[data-testid="tx-P-2-C"][data-state="failed"][data-moved="nothing"]').waitFor();
      await expect(page.locator('[data-testid="tx-P-2-C"] .state').textContent()).resolves.toBe(
        'Cancel not done: nothing cancelled',
      );
      await expect(page.locator('[data-testid="tx-P-2-C"]').getAttribute('title')).resolves.toBeNull();
    } finally {
      s.payments.operationState = 'approved';
    }
  });

  it('the offline badge opens the queue: a sale needing attention is queued again, "send now" uploads', async () => {
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
        serverTransactionId: 'srv-D',
      },
    );
    await page.getByTestId('offline-badge').click();
    await page.getByTestId('offline-panel').waitFor();
    await page.getByTestId('offline-item-OQ-A').and(page.locator('[data-state="needs_attention"]')).waitFor();
    // Staff act on these first: needing attention, then declined, then waiting.
    await expect(
      page
        .getByTestId('offline-items')
        .locator('li')
        .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-state'))),
    ).resolves.toEqual(['needs_attention', 'declined_after_upload', 'queued']);
    await expect(page.getByTestId('offline-summary').textContent()).resolves.toBe(
      '1 waiting · 1 need attention · 1 declined after upload',
    );
    await expect(page.getByTestId('offline-item-message-OQ-D').textContent()).resolves.toBe(
      'declined after upload: Insufficient funds · tries: 1',
    );
    await expect(page.getByTestId('offline-item-OQ-D').textContent()).resolves.toMatch(
      /19\.99 EUR · 400000\*{6}0002.*Declined after upload/,
    );
    await expect(page.getByTestId('offline-requeue-OQ-D').count()).resolves.toBe(0);
    await expect(page.getByTestId('offline-requeue-OQ-Q').count()).resolves.toBe(0);
    // 800x480: the panel stays on screen and its buttons are touch-sized.
    const box = await page.getByTestId('offline-panel').boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(800);
    expect(box!.y + box!.height).toBeLessThanOrEqual(480);
    expect((await page.getByTestId('offline-requeue-OQ-A').boundingBox())!.height).toBeGreaterThanOrEqual(40);
    await page.screenshot({ path: join(ARTIFACTS, 'page-offline-panel.png') });

    await page.getByTestId('offline-requeue-OQ-A').click();
    await page.getByTestId('offline-item-OQ-A').and(page.locator('[data-state="queued"]')).waitFor();
    await expect(page.getByTestId('offline-message').textContent()).resolves.toBe(
      'Sale 12.34 EUR queued again; it is sent when the platform is reachable.',
    );
    expect(s.offline.requeued).toEqual(['OQ-A']);
    await expect(page.getByTestId('offline-requeue-OQ-A').count()).resolves.toBe(0);

    const flushedBefore = s.offline.flushed;
    await page.getByTestId('offline-flush').click();
    await page.getByTestId('offline-message').filter({ hasText: '2 sent; nothing left to send.' }).waitFor();
    expect(s.offline.flushed).toBe(flushedBefore + 1);
    await page.getByTestId('offline-close').click();
    await expect(page.getByTestId('offline-panel').isHidden()).resolves.toBe(true);
    s.offline.queue.length = 0;
  });

  it("shows a sale declined after upload in today's list with its message", async () => {
    s.payments.view({
      clientTransactionId: 'OFF-1',
      amount: 1999,
      state: 'declined',
      offline: true,
      maskedPan: '400000******0002',
      platformStatus: 'Refused',
      message: 'declined after upload: Insufficient funds',
    });
    s.bus.publish('offline.warning', {
      message: 'sale OFF-1 declined after upload: Insufficient funds',
      clientTransactionId: 'OFF-1',
    });
    s.bus.publish('transaction.updated', {
      clientTransactionId: 'OFF-1',
      kind: 'sale',
      status: 'declined',
      message: 'declined after upload: Insufficient funds',
    });
    await page.getByTestId('tx-OFF-1').waitFor();
    // The state in the catalog's words; the agent's reason, when selected, behind "details" (never a title: no hover on a touch screen).
    await expect(page.getByTestId('tx-OFF-1').locator('.state').textContent()).resolves.toBe(
      'sent: declined after upload',
    );
    await expect(page.getByTestId('tx-OFF-1').getAttribute('title')).resolves.toBeNull();
    await page.getByTestId('tx-OFF-1').click();
    await expect(page.getByTestId('tx-op-details').locator('.detail-text').textContent()).resolves.toMatch(
      /Insufficient funds/,
    );
    await page.getByTestId('tx-ops-close').click();
    await expect(page.getByTestId('error').textContent()).resolves.toMatch(
      /sale OFF-1 declined after upload: Insufficient funds/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'page-declined-after-upload.png') });
    await page.locator('#error-close').click();
  });

  it('offers a merchant picker only with several merchants, the default selected, and sends the chosen one', async () => {
    await expect(page.getByTestId('merchant').isHidden()).resolves.toBe(true);
    s.merchants.list = [
      { merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true },
      { merchantName: 'Demo Books', clientId: 'terminal-app-1002', default: false },
    ];
    s.bus.publish('auth.status', { state: 'ready', clientId: 'terminal-app-1001' });
    await page.getByTestId('merchant').waitFor();
    await expect(page.getByTestId('merchant').inputValue()).resolves.toBe('terminal-app-1001');
    await expect(page.getByTestId('merchant').locator('option').allTextContents()).resolves.toEqual([
      'Demo Coffee',
      'Demo Books',
    ]);
    // The default merchant is the one picked at first.
    await expect(page.getByTestId('merchant').inputValue()).resolves.toBe('terminal-app-1001');
    await page.screenshot({ path: join(ARTIFACTS, 'page-merchant-picker.png') });
    // The sale form still fits 800x480 with the picker shown.
    const start = await page.getByTestId('start-sale').boundingBox();
    expect(start!.y + start!.height).toBeLessThanOrEqual(480);

    await page.getByTestId('merchant').selectOption('terminal-app-1002');
    await page.getByTestId('amount').fill('3.50');
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    expect(s.payments.calls.filter((c) => c.op === 'startSale').at(-1)?.arg).toEqual({
      method: 'card',
      amount: 350,
      currency: 'EUR',
      merchantId: 'terminal-app-1002',
    });
    const sale = [...s.payments.views.values()].at(-1);
    if (!sale) throw new Error('no sale started');
    s.payments.views.set(sale.clientTransactionId, { ...sale, state: 'approved' });
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'approved',
    });
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor();
    await page.getByTestId('sale-done').click();
    // The choice stays for the next sale.
    await expect(page.getByTestId('merchant').inputValue()).resolves.toBe('terminal-app-1002');
    s.merchants.list = [];
  });

  it('raised no script errors', () => {
    expect(errors).toEqual([]);
  });
});
