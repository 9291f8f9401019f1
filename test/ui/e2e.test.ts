import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningAgent } from '../../src/agent.js';
import { startDemoAgent } from './demo-agent.js';
import type { TestAgent } from '../helpers/test-agent.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage, signInOnPage } from './browser.js';
import { DEMO_STAFF, DEMO_TRAINEE } from './staff.js';

/**
 * The whole agent (embedded demo platform, simulated peripherals) driven from the counter
 * page in headless Chromium: a walletA consumer-scan sale through the QR to approved, a
 * card sale on the simulated reader, and a cancel. Screenshots go to test-artifacts/.
 */
describe('counter page end to end', () => {
  let demo: TestAgent;
  let agent: RunningAgent;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildPage();
    // Demo Books: authorization only (a card sale stays cancellable; a captured one is
    // refunded instead) and a supervised aggregator whose cancels need approval code 4711.
    demo = await startDemoAgent({ auth: { merchantId: 'terminal-app-1002' }, payments: { captureMode: 'deferred' } });
    agent = demo.agent;
    browser = await launchChromium();
    page = await openCounterPage(browser, agent.url, DEMO_STAFF, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  async function saleId(): Promise<string> {
    const id = await page.getByTestId('sale-panel').getAttribute('data-transaction-id');
    if (id === null) throw new Error('no sale on the page');
    return id;
  }

  it('takes a walletA consumer-scan sale through the QR to approved when the wallet pays', async () => {
    await page.getByTestId('amount').fill('12.34');
    await page.getByTestId('method-walletA-qr').click();
    await page.getByTestId('start-sale').click();
    await page.locator('[data-testid="sale-qr"][src^="blob:"]').waitFor();
    await expect(page.getByTestId('sale-progress').textContent()).resolves.toBe('Show the QR code to the customer');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-1-wallet-qr.png') });

    const id = await saleId();
    agent.demoPlatform?.payments.wallet.pay(id);
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-2-wallet-approved.png') });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(1234);
    await page.getByTestId('sale-done').click();
  });

  it('runs a card sale on the simulated reader to approved', async () => {
    await page.getByTestId('amount').fill('7.50');
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-3-card-waiting.png') });
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor({ timeout: 20_000 });
    await expect(page.getByTestId('sale-method').textContent()).resolves.toMatch(/Card · \d{6}\*+\d{4}/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-4-card-approved.png') });
    await page.getByTestId('sale-done').click();
  });

  it("cancels the card sale from today's list", async () => {
    const card = agent.payments.list({ limit: 10 }).find((t) => t.kind === 'sale' && t.method === 'card');
    if (!card) throw new Error('card sale not in the journal');
    await page.getByTestId(`tx-${card.clientTransactionId}`).click();
    await page.locator('[data-testid="tx-cancel"]:not([disabled])').waitFor();
    await expect(page.getByTestId('tx-capture').isEnabled()).resolves.toBe(true);
    await expect(page.getByTestId('tx-refund').isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-5-operations.png') });
    await page.getByTestId('tx-op-approval').fill('4711');
    await page.getByTestId('tx-cancel').click();
    await page
      .getByTestId('tx-op-confirm')
      .filter({ hasText: /Cancel sale 7\.50 EUR on card/ })
      .waitFor();
    await page.getByTestId('tx-op-confirm-yes').click();
    await page
      .getByTestId('tx-op-message')
      .filter({ hasText: /^Cancel 7\.50 EUR: done/ })
      .waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-6-cancelled.png') });
    expect(agent.demoPlatform?.payments.netCharged(card.clientTransactionId)).toBe(0);
  });

  it('shows the signed-in clerk and records them as the operator of every row they made', async () => {
    await expect(page.getByTestId('clerk-name').textContent()).resolves.toBe(DEMO_STAFF.name);
    const rows = agent.payments.list({ limit: 10 });
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(row.operator, `${row.kind} ${row.clientTransactionId}`).toBe(DEMO_STAFF.username);
    const cancel = rows.find((r) => r.kind === 'cancel');
    if (cancel === undefined) throw new Error('no cancel row');
    await expect(page.getByTestId(`tx-${cancel.clientTransactionId}`).getAttribute('data-operator')).resolves.toBe(
      DEMO_STAFF.username,
    );
  });

  it('signs out back to the sign-in screen; a clerk without the permission sees cancel and refund, and a tap names the permission', async () => {
    await page.getByTestId('sign-out').click();
    await page.getByTestId('sign-in').waitFor();
    await expect(page.getByTestId('amount').isVisible()).resolves.toBe(false);
    await page.getByTestId('sign-in-username').fill(DEMO_STAFF.username);
    await page.getByTestId('sign-in-password').fill('not-the-password');
    await page.getByTestId('sign-in-submit').click();
    await page
      .getByTestId('sign-in-message')
      .filter({ hasText: /wrong username or password/ })
      .waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-7-sign-in-refused.png') });
    await signInOnPage(page, DEMO_TRAINEE);
    await expect(page.getByTestId('clerk-name').textContent()).resolves.toBe(DEMO_TRAINEE.name);
    const sale = agent.payments.list({ limit: 10 }).find((t) => t.kind === 'sale' && t.method === 'card');
    if (!sale) throw new Error('card sale not in the journal');
    await page.getByTestId(`tx-${sale.clientTransactionId}`).click();
    await page.getByTestId('tx-ops').waitFor();
    // The buttons show (README: refused with the permission named); the agent's refusal answers the tap, nothing is written.
    await expect(page.getByTestId('tx-cancel').isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('tx-refund').isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('web-open').isVisible()).resolves.toBe(true);
    const rows = agent.payments.list({ limit: 50 }).length;
    await page.getByTestId('web-open').click();
    await page.getByTestId('web-id').fill('web-order-1');
    await page.getByTestId('web-send').click();
    await page
      .getByTestId('web-message')
      .filter({
        hasText: 'You may not do this: ask a supervisor who has the permission payment:cancel, payment:refund.',
      })
      .waitFor();
    expect(agent.payments.list({ limit: 50 })).toHaveLength(rows);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-8-trainee.png') });
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
