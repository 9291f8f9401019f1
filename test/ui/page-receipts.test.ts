import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningAgent } from '../../src/agent.js';
import { startDemoAgent } from './demo-agent.js';
import type { TestAgent } from '../helpers/test-agent.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage } from './browser.js';
import { DEMO_STAFF } from './staff.js';

/**
 * The receipt and the end of day on the counter page (docs/receipts.md), in headless
 * Chromium against the whole agent (embedded demo platform, simulated reader): a card sale's
 * customer receipt from the outcome screen, the merchant copy on request, the same receipt
 * from today's list; then the day's totals with the sale in them, the day before empty, and
 * the CSV behind its link.
 */
describe('counter page: receipt and end of day', () => {
  let demo: TestAgent;
  let agent: RunningAgent;
  let browser: Browser;
  let page: Page;
  let saleId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildPage();
    demo = await startDemoAgent();
    agent = demo.agent;
    browser = await launchChromium();
    page = await openCounterPage(browser, agent.url, DEMO_STAFF, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  const receiptText = () => page.getByTestId('receipt-text').textContent();

  it('shows the customer receipt of a card sale from the outcome screen, and the merchant copy on request', async () => {
    await page.getByTestId('amount').fill('7.50');
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor({ timeout: 20_000 });
    saleId = (await page.getByTestId('sale-panel').getAttribute('data-transaction-id')) ?? '';
    const row = agent.payments.list({ limit: 5 }).find((t) => t.clientTransactionId === saleId);
    if (row?.maskedPan === undefined) throw new Error('the card sale has no masked card in the journal');
    const last4 = row.maskedPan.slice(-4);

    await page.getByTestId('sale-receipt').click();
    await page.locator('[data-testid="receipt"][data-loaded="customer"]').waitFor();
    const customer = (await receiptText()) ?? '';
    expect(customer).toMatch(/CUSTOMER COPY/);
    expect(customer).toMatch(/Demo Coffee/);
    expect(customer).toMatch(/EUR 7\.50/);
    expect(customer).toMatch(/APPROVED/);
    expect(customer).toContain(`**** ${last4}`);
    expect(customer).toMatch(/staff1/);
    // The printer's layout: 48 columns at 800 px, never a wider line; only the last four digits.
    expect(Math.max(...customer.split('\n').map((l) => l.length))).toBeLessThanOrEqual(48);
    expect(customer).not.toContain(row.maskedPan.slice(0, 6));
    await page.screenshot({ path: join(ARTIFACTS, 'page-receipt-customer.png') });

    await page.getByTestId('receipt-copy').click();
    await page.locator('[data-testid="receipt"][data-loaded="merchant"]').waitFor();
    await expect(receiptText()).resolves.toMatch(/MERCHANT COPY[\s\S]*EUR 7\.50/);
    await page.getByTestId('receipt-close').click();
    await expect(page.getByTestId('receipt').isVisible()).resolves.toBe(false);
    await page.getByTestId('sale-done').click();
  });

  it("shows the receipt of a row of today's list", async () => {
    await page.getByTestId(`tx-${saleId}`).click();
    await page.locator('[data-testid="tx-receipt"]:not([disabled])').click();
    await page.locator('[data-testid="receipt"][data-loaded="customer"]').waitFor();
    await expect(receiptText()).resolves.toMatch(/CUSTOMER COPY[\s\S]*EUR 7\.50[\s\S]*APPROVED/);
    await page.getByTestId('receipt-close').click();
    await page.getByTestId('tx-ops-close').click();
  });

  it("shows the day's totals with the sale, another day empty, and the CSV to download", async () => {
    await page.getByTestId('menu-open').click();
    await page.getByTestId('menu-eod').click();
    await page.locator('[data-testid="eod"][data-date]').waitFor();
    const sales = page.locator('[data-testid="eod-totals-EUR"] tr[data-figure="sales"] td');
    await expect(sales.allTextContents()).resolves.toEqual(['1', '7.50 EUR']);
    await expect(
      page.locator('[data-testid="eod-totals-EUR"] tr[data-figure="net"] td').last().textContent(),
    ).resolves.toBe('7.50 EUR');
    // When it was added up, in the clerk's zone and locale: the demo clerk's datetimeformat claim is
    // the ISO 8601 interchange form (YYYY-MM-DDTHH:mm:ssZ), which a clerk is not shown.
    await expect(page.getByTestId('eod-generated').textContent()).resolves.toMatch(
      /^Added up \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2}/,
    );
    // The headings are open: their figures show without a tap.
    for (const table of await page.locator('#eod details table').all())
      await expect(table.isVisible()).resolves.toBe(true);
    const groups = await page.locator('#eod details').allTextContents();
    expect(groups).toHaveLength(3);
    expect(groups[0]).toMatch(/^By merchant.*Demo Coffee1 · 7\.50 EUR/);
    expect(groups[1]).toMatch(/^By method.*Card1 · 7\.50 EUR/);
    expect(groups[2]).toMatch(/^By operator.*staff11 · 7\.50 EUR/);
    await page.screenshot({ path: join(ARTIFACTS, 'page-end-of-day.png') });

    // The CSV behind the link is the day's, with the session cookie (same origin).
    const href = await page.getByTestId('eod-csv').getAttribute('href');
    const csv = await page.evaluate(
      async (url) => (await fetch(url ?? '', { credentials: 'same-origin' })).text(),
      href,
    );
    expect(csv.split('\r\n')[0]).toMatch(/^date,time_zone,terminal_id,merchant_id/);
    expect(csv).toMatch(/,card,staff1,EUR,2,1,750,/);

    // The day before (the demo's journal starts today): empty, and the CSV link follows it.
    const today = (await page.getByTestId('eod').getAttribute('data-date')) ?? '';
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const yesterday = new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    await page.getByTestId('eod-previous').click();
    await page.locator(`[data-testid="eod"][data-date="${yesterday}"]`).waitFor();
    await expect(page.getByTestId('eod-body').textContent()).resolves.toMatch(/No transactions on this day\./);
    await expect(page.getByTestId('eod-csv').getAttribute('href')).resolves.toContain(`date=${yesterday}`);
    await page.getByTestId('eod-close').click();
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
