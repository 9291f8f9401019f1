import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { FakeStaff, GERMAN_CLERK, signInCookie } from './staff.js';
import { call } from '../helpers/http-client.js';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { localAllowed } from '../../src/payments/rules.js';
import { SOLD_AT, saleRow } from '../payments/sale-row.js';

/**
 * The counter page in German, in real Chromium against the real local API (docs/counter-page.md,
 * "Local API and counter page", languages): the sign-in screen speaks the configured language
 * (api.locale), the signed-in clerk's token claims pick language and zone, the keypad types
 * `,`, amounts read "1.234,50 EUR", the agent gets "12.34", the currencies are the configured ones.
 */
describe('counter page in German', () => {
  let s: Started;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    buildPage();
    s = await startApi({
      pageDirs: defaultPageDirs(),
      extra: { staff: new FakeStaff() },
      config: {
        api: { port: 0, locale: 'de-DE', timeZone: 'America/New_York' },
        payments: { currencies: ['CHF', 'JPY'] },
      },
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const startArg = () => s.payments.calls.filter((c) => c.op === 'startSale').at(-1)?.arg;
  async function approveAndClose(): Promise<void> {
    const sale = [...s.payments.views.values()].filter((v) => v.clientTransactionId.startsWith('T-')).at(-1);
    if (sale === undefined) throw new Error('no sale started');
    s.payments.views.set(sale.clientTransactionId, { ...sale, state: 'approved' });
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'approved',
    });
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor();
    // A card sale with nothing captured: authorized only (docs/counter-page.md, "Local API and counter page", headlines).
    await expect(page.getByTestId('sale-outcome').textContent()).resolves.toBe('Autorisiert, später buchen');
    await page.getByTestId('sale-done').click();
  }

  it('the agent answers the settings: claims first (de-DE, Berlin), the configured currencies with their minor digits', async () => {
    const signedOut = (await call(s.url, 'GET', '/session')).json as { counter: unknown };
    expect(signedOut.counter).toEqual({
      locale: 'de-DE',
      timeZone: 'America/New_York',
      defaultCurrency: 'EUR',
      currencies: [
        { code: 'EUR', digits: 2 },
        { code: 'CHF', digits: 2 },
        { code: 'JPY', digits: 0 },
      ],
      outcomeSeconds: 60,
    });
    const cookie = await signInCookie(s.url, GERMAN_CLERK);
    const signedIn = (await call(s.url, 'GET', '/session', { headers: { cookie } })).json as {
      counter: { locale: string; timeZone: string };
    };
    // The clerk's datetimeformat claim comes along; the signed-out answer has none (no configured default).
    expect(signedIn.counter).toMatchObject({
      locale: 'de-DE',
      timeZone: 'Europe/Berlin',
      dateTimeFormat: 'DD.MM.YYYY HH:mm:ss Z',
    });
  });

  it('the sign-in screen speaks the configured language', async () => {
    await expect(page.getByTestId('sign-in-submit').textContent()).resolves.toBe('Anmelden');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de-DE');
    await signInOnPage(page, GERMAN_CLERK);
    await page.locator('[data-testid="live-status"][data-connected="true"]').waitFor();
  });

  it('a sale entered with the keypad\'s "," reaches the agent as 12.34 and reads 12,34 EUR', async () => {
    await expect(page.getByTestId('start-sale').textContent()).resolves.toBe('Verkauf starten');
    await expect(page.getByTestId('key-decimal').textContent()).resolves.toBe(',');
    await expect(page.getByTestId('currency').locator('option').allTextContents()).resolves.toEqual([
      'EUR',
      'CHF',
      'JPY',
    ]);
    await expect(page.getByTestId('currency').inputValue()).resolves.toBe('EUR');
    for (const key of ['1', '2', '.', '3', '4', '.']) await page.locator(`#keypad [data-key="${key}"]`).click();
    await expect(page.getByTestId('amount').inputValue()).resolves.toBe('12,34');
    await page.screenshot({ path: join(ARTIFACTS, 'page-de-amount.png') });
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    expect(startArg()).toEqual({ method: 'card', amount: 1234, currency: 'EUR' });
    await expect(page.getByTestId('sale-amount').textContent()).resolves.toBe('12,34 EUR');
    await expect(page.getByTestId('sale-progress').textContent()).resolves.toBe('Wird autorisiert …');
    await page.screenshot({ path: join(ARTIFACTS, 'page-de-sale.png') });
    await approveAndClose();
  });

  it('thousands are grouped with "." and typed so; a currency without minor digits has none', async () => {
    await page.getByTestId('amount').fill('1.234,5');
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    expect(startArg()).toEqual({ method: 'card', amount: 123450, currency: 'EUR' });
    await expect(page.getByTestId('sale-amount').textContent()).resolves.toBe('1.234,50 EUR');
    await approveAndClose();

    await page.getByTestId('currency').selectOption('JPY');
    await page.getByTestId('amount').fill('500');
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    expect(startArg()).toEqual({ method: 'card', amount: 500, currency: 'JPY' });
    await expect(page.getByTestId('sale-amount').textContent()).resolves.toBe('500 JPY');
    await approveAndClose();
  });

  it("today's list: times in the clerk's zone, German words, amounts in German format", async () => {
    s.payments.view({
      clientTransactionId: 'DE-1',
      amount: 250075,
      state: 'declined',
      createdAt: '2026-01-15T12:05:00.000Z',
      maskedPan: '476173******0010',
      message: 'Insufficient funds',
    });
    s.bus.publish('transaction.updated', { clientTransactionId: 'DE-1', kind: 'sale', status: 'declined' });
    const row = page.getByTestId('tx-DE-1');
    await row.waitFor();
    // 12:05 UTC is 13:05 in Berlin in January (not 07:05 in New York, the configured zone the claim overrides).
    await expect(row.locator('.time').textContent()).resolves.toBe('13:05');
    await expect(row.locator('.amt').textContent()).resolves.toBe('2.500,75 EUR');
    await expect(row.locator('.state').textContent()).resolves.toBe('abgelehnt');
    await expect(page.getByTestId('history-title').textContent()).resolves.toMatch(/^Heute, \d{2}\.\d{2}\.\d{4}$/);
    // The row's title says its words and time of day in the clerk's zone, as the row does: no stamp.
    await row.click();
    await expect(page.getByTestId('tx-ops-title').textContent()).resolves.toBe(
      'Verkauf 2.500,75 EUR · abgelehnt · 13:05',
    );
    await page.getByTestId('tx-ops-close').click();
    await page.screenshot({ path: join(ARTIFACTS, 'page-de-list.png') });
  });

  it('a refusal of the agent reads in German; its English reason is shown open under it (the clerk acts on it)', async () => {
    const english =
      '100000.00 EUR is above the per-sale maximum of 5000.00 EUR (payments.maxSaleAmount): nothing was started';
    s.payments.failWith = new AgentError(ErrorCodes.AMOUNT_INVALID, english);
    await page.getByTestId('currency').selectOption('EUR');
    await page.getByTestId('amount').fill('100.000');
    await page.getByTestId('start-sale').click();
    await page.getByTestId('error').waitFor();
    s.payments.failWith = undefined;
    await expect(page.locator('#error-text .error-sentence').textContent()).resolves.toBe(
      'Dieser Betrag kann nicht angenommen werden. Prüfen Sie den Betrag und versuchen Sie es erneut.',
    );
    const details = page.getByTestId('error-details');
    await expect(details.locator('summary').textContent()).resolves.toBe('Details');
    // An amount refused for a reason (here the per-sale maximum): the reason is what to act on, so it is open.
    await expect(details.locator('.detail-text').isVisible()).resolves.toBe(true);
    await expect(details.locator('.detail-text').textContent()).resolves.toBe(english);
    await page.screenshot({ path: join(ARTIFACTS, 'page-de-refusal.png') });
    await page.locator('#error-close').click();
  });

  it("an operation refused, a code the page does not know, and a decline: German headline, the agent's reason as the detail", async () => {
    const sale = s.payments.view({
      clientTransactionId: 'DE-2',
      amount: 900,
      state: 'approved',
      maskedPan: '476173******0010',
    });
    s.bus.publish('transaction.updated', {
      clientTransactionId: sale.clientTransactionId,
      kind: 'sale',
      status: 'approved',
    });
    await page.getByTestId('tx-DE-2').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    s.payments.operationError = new AgentError(ErrorCodes.API_FORBIDDEN, 'payment:cancel permission required');
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page.locator('[data-testid="tx-op-message"].error').waitFor();
    await expect(page.locator('[data-testid="tx-op-message"] .ops-text').textContent()).resolves.toBe(
      'Das dürfen Sie nicht. Fragen Sie eine Aufsicht.',
    );
    await expect(page.getByTestId('tx-op-details').locator('span').textContent()).resolves.toBe(
      'payment:cancel permission required',
    );

    // A code without a sentence of its own: the generic German one, the English words behind "Details".
    s.payments.operationError = new AgentError(ErrorCodes.INTERNAL, 'journal row 17 has no merchant');
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page.getByTestId('tx-op-details').filter({ hasText: 'journal row 17' }).waitFor();
    await expect(page.locator('[data-testid="tx-op-message"] .ops-text').textContent()).resolves.toMatch(
      /^Der Agent konnte das nicht ausführen\./,
    );
    await page.getByTestId('tx-ops-close').click();

    await page.getByTestId('amount').fill('7');
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    const started = [...s.payments.views.values()].filter((v) => v.clientTransactionId.startsWith('T-')).at(-1);
    if (started === undefined) throw new Error('no sale started');
    s.payments.views.set(started.clientTransactionId, { ...started, state: 'declined', message: 'Insufficient funds' });
    s.bus.publish('transaction.updated', {
      clientTransactionId: started.clientTransactionId,
      kind: 'sale',
      status: 'declined',
    });
    await page.locator('[data-testid="sale-outcome"][data-state="declined"]').waitFor();
    await expect(page.getByTestId('sale-outcome').textContent()).resolves.toBe('Abgelehnt');
    await expect(page.getByTestId('sale-details').locator('summary').textContent()).resolves.toBe('Details');
    await expect(page.getByTestId('sale-details').locator('.detail-text').textContent()).resolves.toBe(
      'Insufficient funds',
    );
    await page.getByTestId('sale-done').click();
  });

  it('an operation not allowed says why in German (its reason code), as text under the buttons, not as a title', async () => {
    // A captured card sale refunded in full: the real rules refuse all three, each with its code.
    const row = saleRow({
      clientTransactionId: 'DE-3',
      method: 'card',
      scenario: undefined,
      capturedAmount: 1_000,
      refundedAmount: 1_000,
      platformStatus: 'Captured',
    });
    const allowed = localAllowed(row, SOLD_AT);
    s.payments.view({ clientTransactionId: 'DE-3', amount: 1_000, state: 'approved', maskedPan: '476173******0010' });
    s.payments.allowedFor.set('DE-3', allowed);
    s.bus.publish('transaction.updated', { clientTransactionId: 'DE-3', kind: 'sale', status: 'approved' });
    await page.getByTestId('tx-DE-3').click();
    const cancelWhy = 'Der Verkauf ist gebucht: erstatten Sie ihn, statt ihn zu stornieren.';
    const reasons = page.getByTestId('tx-op-reasons');
    await reasons.locator('li[data-op="cancel"]').filter({ hasText: cancelWhy }).waitFor();
    await expect(page.getByTestId('tx-cancel').isDisabled()).resolves.toBe(true);
    await expect(reasons.locator('li').allTextContents()).resolves.toEqual([
      `Stornieren: ${cancelWhy}`,
      'Erstatten: Von diesem Verkauf ist nichts mehr zu erstatten.',
      'Buchen: Der Verkauf ist bereits gebucht.',
    ]);
    await expect(reasons.textContent()).resolves.not.toContain(allowed.cancel.reason ?? '');
    for (const b of ['tx-cancel', 'tx-refund', 'tx-capture'])
      await expect(page.getByTestId(b).getAttribute('title')).resolves.toBeNull();
    await page.screenshot({ path: join(ARTIFACTS, 'page-de-not-allowed.png') });
    await page.getByTestId('tx-ops-close').click();
  });

  it('a refund by web of a sale of this terminal without payment:refund-by-web: refused, the permission named in German', async () => {
    s.payments.view({ clientTransactionId: 'DE-4', amount: 1_500, state: 'approved', maskedPan: '476173******0010' });
    s.bus.publish('transaction.updated', { clientTransactionId: 'DE-4', kind: 'sale', status: 'approved' });
    const before = s.payments.calls.filter((c) => c.op === 'refundByWeb').length;
    await page.getByTestId('web-open').click();
    await page.getByTestId('web-id').fill('DE-4');
    await page.getByTestId('web-send').click();
    await page.locator('[data-testid="web-message"].error').waitFor();
    await expect(page.getByTestId('web-message').textContent()).resolves.toMatch(
      /^Das dürfen Sie nicht: fragen Sie eine Aufsicht mit der Berechtigung payment:refund-by-web\./,
    );
    expect(s.payments.calls.filter((c) => c.op === 'refundByWeb')).toHaveLength(before);
    await page.screenshot({ path: join(ARTIFACTS, 'page-de-refund-by-web-permission.png') });
    await page.getByTestId('web-close').click();
  });

  it('raised no script errors', () => {
    expect(errors).toEqual([]);
  });
});
