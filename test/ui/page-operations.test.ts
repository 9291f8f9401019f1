import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage } from './browser.js';
import { CLERK, FakeStaff } from './staff.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { en as enTexts } from '../../src/ui/page/texts-en.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * The counter page's operations and unknown-outcome screen in real Chromium against the real
 * local API and a fake payments engine (docs/counter-page.md, "Local API and counter page").
 */
describe('counter page: operations and the unknown outcome', () => {
  let s: Started;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    buildPage();
    s = await startApi({ pageDirs: defaultPageDirs(), extra: { staff: new FakeStaff() } });
    browser = await launchChromium();
    page = await openCounterPage(browser, s.url, CLERK, errors);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const sale = (id: string, amount: number) => {
    const v = s.payments.view({ clientTransactionId: id, amount, state: 'approved', maskedPan: '476173******0010' });
    s.bus.publish('transaction.updated', { clientTransactionId: id, kind: 'sale', status: 'approved' });
    return v;
  };
  const message = () => page.getByTestId('tx-op-message');
  /** Waits until the page has asked for the allowed operations again (a reload of the list happened) and shown the answer. */
  async function reloaded(id: string): Promise<void> {
    const before = s.payments.calls.filter((c) => c.op === 'allowedOperations' && c.id === id).length;
    s.bus.publish('transaction.updated', { clientTransactionId: id, kind: 'sale', status: 'approved' });
    await untilTrue(
      'the list to reload',
      () => s.payments.calls.filter((c) => c.op === 'allowedOperations' && c.id === id).length > before,
      { everyMs: 50 },
    );
    // The page marks the panel loaded once it has shown that answer.
    await page.locator('[data-testid="tx-ops"][data-loaded="true"]').waitFor();
  }

  it('cancel asks first (amount, masked card); "No" sends nothing; "Yes" once, the result stays over reloads, fields clear', async () => {
    sale('O-1', 500);
    await page.getByTestId('tx-O-1').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    await page.getByTestId('tx-op-approval').fill('4711');
    await page.getByTestId('tx-cancel').click();
    await expect(page.getByTestId('tx-op-confirm').textContent()).resolves.toMatch(
      /^Cancel sale 5\.00 EUR on card 476173\*{6}0010\?/,
    );
    await page.getByTestId('tx-op-confirm-no').click();
    expect(s.payments.calls.filter((c) => c.op === 'cancel' && c.id === 'O-1')).toEqual([]);

    s.payments.operationDelayMs = 800;
    try {
      await page.getByTestId('tx-cancel').click();
      await page.getByTestId('tx-op-confirm-yes').click();
      // While it is on its way no button can send it again.
      await expect(page.getByTestId('tx-cancel').isDisabled()).resolves.toBe(true);
      await page
        .getByTestId('tx-cancel')
        .click({ force: true })
        .catch(() => undefined);
      await message().filter({ hasText: 'Cancel 5.00 EUR: done' }).waitFor();
    } finally {
      s.payments.operationDelayMs = 0;
    }
    expect(s.payments.calls.filter((c) => c.op === 'cancel' && c.id === 'O-1')).toHaveLength(1);
    await expect(page.getByTestId('tx-op-approval').inputValue()).resolves.toBe('');

    // The agent now says nothing is left: the result still stands, not "a cancelled sale cannot be cancelled".
    const none = { allowed: false, maxAmount: 0, reason: 'a cancelled sale cannot be cancelled' };
    s.payments.allowedFor.set('O-1', {
      cancel: none,
      refund: { ...none, reason: 'nothing left to refund' },
      capture: { ...none, reason: 'cancelled' },
      currency: 'EUR',
      fromPlatform: true,
    });
    await reloaded('O-1');
    await reloaded('O-1');
    await expect(message().textContent()).resolves.toBe('Cancel 5.00 EUR: done');
    await expect(page.getByTestId('tx-refund').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('tx-cancel').isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'page-op-result-stays.png') });
  });

  it('a refusal shows where the action was, with its reason, and stays', async () => {
    sale('O-2', 800);
    await page.getByTestId('tx-O-2').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    s.payments.operationError = new AgentError(
      ErrorCodes.PAYMENT_RULE,
      'this merchant needs an approval code for a cancel',
    );
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page
      .locator('[data-testid="tx-op-message"].error')
      .filter({ hasText: 'this merchant needs an approval code for a cancel' })
      .waitFor();
    await reloaded('O-2');
    // The clerk's sentence for the code (the page's catalog); the agent's reason behind "details".
    await expect(message().locator('.ops-text').textContent()).resolves.toBe(
      'This is not allowed for this transaction. Check the details or ask a supervisor.',
    );
    await expect(page.getByTestId('tx-op-details').locator('.detail-text').textContent()).resolves.toBe(
      'this merchant needs an approval code for a cancel',
    );
  });

  it("a refusal with a reason code says that reason in the clerk's words, as the buttons do", async () => {
    sale('O-4', 700);
    await page.getByTestId('tx-O-4').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    // Allowed when the page looked; refused when sent (a refund went through meanwhile).
    s.payments.operationError = new AgentError(
      ErrorCodes.PAYMENT_RULE,
      'the sale is cancelled and refunded already up to its amount',
      { details: { reasonCode: 'NOTHING_LEFT_TO_CANCEL' } },
    );
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page.locator('[data-testid="tx-op-message"].error').waitFor();
    await expect(page.locator('[data-testid="tx-op-message"] .ops-text').textContent()).resolves.toBe(
      enTexts['reason.nothingLeftToCancel'],
    );
    await expect(page.getByTestId('tx-op-details').locator('.detail-text').textContent()).resolves.toBe(
      'the sale is cancelled and refunded already up to its amount',
    );
  });

  it('technical words (host:port, socket codes, ids) stay behind "details", not in the sentence', async () => {
    sale('O-3', 900);
    await page.getByTestId('tx-O-3').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    s.payments.operationError = new AgentError(
      ErrorCodes.PAYMENT_NOT_SENT,
      'could not reach 127.0.0.1:8443 (ECONNREFUSED): nothing was cancelled for 0b5c6f0e-1d2a-4c3b-9e8f-7a6b5c4d3e2f',
    );
    await page.getByTestId('tx-cancel').click();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page.locator('[data-testid="tx-op-message"].error').waitFor();
    const text = await page.locator('[data-testid="tx-op-message"] .ops-text').textContent();
    expect(text).toBe('Nothing was done: the platform could not be reached. Try again.');
    expect(text).not.toMatch(/127\.0\.0\.1|8443|ECONNREFUSED|0b5c6f0e/);
    await page.getByTestId('tx-op-details').locator('summary').click();
    await expect(page.getByTestId('tx-op-details').textContent()).resolves.toMatch(
      /127\.0\.0\.1:8443 \(ECONNREFUSED\)/,
    );
  });

  it('list wording: a capture is not negative, a failed refund moved nothing and is not red, no amount said twice, a cancel is not "approved"', async () => {
    sale('W-1', 1234);
    s.payments.view({
      clientTransactionId: 'W-1-K',
      kind: 'capture',
      relatedClientTransactionId: 'W-1',
      amount: 1234,
      state: 'approved',
      message: 'captured 12.34 EUR',
    });
    s.payments.view({
      clientTransactionId: 'W-1-R',
      kind: 'refund',
      relatedClientTransactionId: 'W-1',
      amount: 500,
      state: 'failed',
      message: 'refund refused: window closed',
    });
    s.payments.view({
      clientTransactionId: 'W-1-C',
      kind: 'cancel',
      relatedClientTransactionId: 'W-1',
      amount: 200,
      state: 'approved',
    });
    s.bus.publish('transaction.updated', { clientTransactionId: 'W-1', kind: 'sale', status: 'approved' });
    const row = (id: string) => page.getByTestId(`tx-${id}`);
    await row('W-1-C').waitFor();
    await expect(row('W-1-K').locator('.amt').textContent()).resolves.toBe('12.34 EUR');
    await expect(row('W-1-K').locator('.state').textContent()).resolves.toBe('captured');
    // The refund that did not happen: no amount as if money moved, neutral words, not the red of a failed sale.
    await expect(row('W-1-R').locator('.state').textContent()).resolves.toBe('Refund not done: nothing refunded');
    await expect(row('W-1-R').locator('.amt').textContent()).resolves.toBe('');
    await expect(row('W-1-R').locator('.state').getAttribute('class')).resolves.toBe('state nothing-moved');
    await expect(
      row('W-1-R')
        .locator('.state')
        .evaluate((e) => e.ownerDocument.defaultView?.getComputedStyle(e).color),
    ).resolves.not.toBe('rgb(185, 28, 28)');
    await expect(row('W-1-C').locator('.amt').textContent()).resolves.toBe('−2.00 EUR');
    await expect(row('W-1-C').locator('.state').textContent()).resolves.toBe('cancelled');
    await page.screenshot({ path: join(ARTIFACTS, 'page-list-wording.png') });
  });

  it("a web shop's order is marked on its row, not only in its message", async () => {
    s.payments.view({
      clientTransactionId: 'WEB-1',
      amount: 4990,
      state: 'approved',
      origin: 'web',
      message: 'web order',
    });
    sale('SHOP-1', 4990);
    const web = page.getByTestId('tx-WEB-1');
    await web.waitFor();
    await expect(web.getByTestId('tx-origin-web').textContent()).resolves.toBe('Web');
    await expect(web.getByTestId('tx-origin-web').isVisible()).resolves.toBe(true);
    await expect(web.getAttribute('class')).resolves.toMatch(/\bweb\b/);
    await expect(page.getByTestId('tx-SHOP-1').getByTestId('tx-origin-web').count()).resolves.toBe(0);
  });

  it('unknown outcome: the whole screen says do not hand over the goods, with progress; the next sale can start; the outcome shows', async () => {
    await page.getByTestId('tx-ops-close').click();
    await page.getByTestId('amount').fill('9.00');
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    const started = [...s.payments.views.values()].filter((v) => v.clientTransactionId.startsWith('T-')).at(-1);
    if (!started) throw new Error('no sale started');
    const id = started.clientTransactionId;
    s.payments.views.set(id, {
      ...started,
      state: 'reversing',
      message: 'the platform did not answer: the sale is being reversed, do not hand over the goods',
    });
    s.bus.publish('transaction.updated', { clientTransactionId: id, kind: 'sale', status: 'reversing' });
    const hold = page.getByTestId('sale-hold');
    await hold.waitFor();
    await expect(hold.textContent()).resolves.toMatch(
      /Do not hand over the goods.*Reversing the sale, still trying after \d+\u00a0s/,
    );
    const box = await page.getByTestId('sale-panel').boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(790);
    // The reversal's attempts (its cancel row, sent again on each retry) show, not only the time.
    s.payments.view({
      clientTransactionId: `REV-${id}`,
      kind: 'cancel',
      relatedClientTransactionId: id,
      amount: 900,
      state: 'in_flight',
      attempts: 3,
    });
    await page.getByTestId('sale-hold-attempts').filter({ hasText: 'Reversal attempt 3' }).waitFor({ timeout: 10_000 });
    s.payments.view({
      clientTransactionId: `REV-${id}`,
      kind: 'cancel',
      relatedClientTransactionId: id,
      amount: 900,
      state: 'in_flight',
      attempts: 4,
    });
    await page.getByTestId('sale-hold-attempts').filter({ hasText: 'Reversal attempt 4' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'page-hold-reversing.png') });

    // The reversal ends: the outcome shows on the same screen.
    s.payments.views.set(id, { ...started, state: 'reversed', message: 'reversed: nothing charged' });
    s.bus.publish('transaction.updated', { clientTransactionId: id, kind: 'sale', status: 'reversed' });
    await page.locator('[data-testid="sale-hold"][data-state="reversed"]').waitFor();
    await expect(hold.textContent()).resolves.toMatch(/nothing was charged/);
    await page.getByTestId('sale-done').click();
    await expect(page.getByTestId('sale-hold').count()).resolves.toBe(0);
  });

  it('the clerk starts the next sale while a reversal goes on', async () => {
    await page.getByTestId('amount').fill('3.00');
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    const started = [...s.payments.views.values()].filter((v) => v.clientTransactionId.startsWith('T-')).at(-1);
    if (!started) throw new Error('no sale started');
    s.payments.views.set(started.clientTransactionId, { ...started, state: 'reversing' });
    s.bus.publish('transaction.updated', {
      clientTransactionId: started.clientTransactionId,
      kind: 'sale',
      status: 'reversing',
    });
    await page.getByTestId('sale-hold').waitFor();
    await expect(page.getByTestId('sale-done').textContent()).resolves.toMatch(/Next sale/);
    await page.getByTestId('sale-done').click();
    await page.getByTestId('start-sale').waitFor();
    await expect(page.getByTestId('sale-hold').count()).resolves.toBe(0);
    expect(s.payments.calls.filter((c) => c.op === 'abortSale' && c.id === started.clientTransactionId)).toEqual([]);
  });

  it('with several merchants each row names its merchant, and the confirmation too', async () => {
    await expect(page.getByTestId('tx-W-1').locator('.what').textContent()).resolves.not.toMatch(/Demo/);
    s.merchants.list = [
      { merchantName: 'Demo Coffee', clientId: 'terminal-app-1001', merchantId: 'm-1001', default: true },
      { merchantName: 'Demo Books', clientId: 'terminal-app-1002', default: false },
    ];
    s.bus.publish('auth.status', { state: 'ready', clientId: 'terminal-app-1001' });
    await page.getByTestId('merchant').waitFor();
    s.payments.view({
      clientTransactionId: 'M-1',
      amount: 300,
      state: 'approved',
      maskedPan: '476173******0010',
      merchantId: 'terminal-app-1002',
    });
    s.bus.publish('transaction.updated', { clientTransactionId: 'M-1', kind: 'sale', status: 'approved' });
    await page.getByTestId('tx-M-1').filter({ hasText: 'Demo Books' }).waitFor();
    await page.getByTestId('tx-M-1').click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    await page.getByTestId('tx-cancel').click();
    await expect(page.getByTestId('tx-op-confirm').textContent()).resolves.toMatch(/for Demo Books\?/);
    await page.getByTestId('tx-op-confirm-no').click();
    s.merchants.list = [];
  });

  it('raised no script errors', () => {
    expect(errors).toEqual([]);
  });
});
