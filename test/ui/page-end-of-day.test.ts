import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestAgent } from '../helpers/test-agent.js';
import { startDemoAgent } from './demo-agent.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage } from './browser.js';
import { DEMO_GERMAN } from './staff.js';

/**
 * The demo's German clerk on the counter page, in headless Chromium against the whole agent
 * (embedded demo platform, simulated reader): verkauf1's token says de-DE and Europe/Berlin,
 * so the page, the receipt sheet and the end of day are German and in Berlin time
 * (docs/receipts.md, "Language and time zone"). The end of day's day is chosen with
 * previous/next day buttons showing the day as the clerk writes it (not the browser's own
 * date input), its headings are open with a visible marker, "added up" is in the clerk's
 * pattern (DD.MM.YYYY HH:mm).
 */
describe('counter page: the German demo clerk, the receipt sheet and the end of day', () => {
  let demo: TestAgent;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildPage();
    demo = await startDemoAgent();
    browser = await launchChromium();
    page = await openCounterPage(browser, demo.agent.url, DEMO_GERMAN, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  /** The day `days` from `date` (YYYY-MM-DD), by the calendar. */
  const shift = (date: string, days: number): string =>
    new Date(Date.parse(`${date}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  /** YYYY-MM-DD as DD.MM.YYYY. */
  const german = (date: string): string => `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`;

  it('signs verkauf1 in to the German page', async () => {
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de-DE');
    await expect(page.getByTestId('start-sale').textContent()).resolves.toBe('Verkauf starten');
    await expect(page.getByTestId('clerk').textContent()).resolves.toContain('Vera Verkauf');
  });

  it('shows a sale receipt in German, in Berlin time with the zone by name', async () => {
    await page.getByTestId('amount').fill('7,50');
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.locator('[data-testid="sale-outcome"][data-state="approved"]').waitFor({ timeout: 20_000 });
    await page.getByTestId('sale-receipt').click();
    await page.locator('[data-testid="receipt"][data-loaded="customer"]').waitFor();
    const text = (await page.getByTestId('receipt-text').textContent()) ?? '';
    expect(text).toContain('KUNDENBELEG');
    expect(text).toMatch(/^Uhrzeit +\d\d:\d\d:\d\d MES?Z$/m);
    expect(text).toMatch(/^BETRAG +EUR 7,50$/m);
    expect(text).toContain('verkauf1');
    expect(text).not.toMatch(/[+-]\d\d:\d\d/);
    await page.getByTestId('receipt-close').click();
    await page.getByTestId('sale-done').click();
  });

  it('chooses the day with previous and next day buttons, the day written as the clerk writes it', async () => {
    await page.getByTestId('menu-open').click();
    await page.getByTestId('menu-eod').click();
    const sheet = page.getByTestId('eod');
    await page.locator('[data-testid="eod"][data-date]').waitFor();
    const today = (await sheet.getAttribute('data-date')) ?? '';
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // No date input of the browser's own (Chromium writes it in its own locale, not the clerk's).
    await expect(page.locator('#eod input[type="date"]').count()).resolves.toBe(0);
    const day = page.getByTestId('eod-day');
    await expect(day.textContent()).resolves.toContain(german(today));
    await expect(day.textContent()).resolves.toContain('Heute');
    // Nothing after today: next is off.
    await expect(page.getByTestId('eod-next').isDisabled()).resolves.toBe(true);
    for (const id of ['eod-previous', 'eod-next']) {
      const box = await page.getByTestId(id).boundingBox();
      expect(box?.width, id).toBeGreaterThanOrEqual(44);
      expect(box?.height, id).toBeGreaterThanOrEqual(44);
      await expect(page.getByTestId(id).getAttribute('aria-label'), id).resolves.toMatch(/Tag/);
    }

    // By keyboard: the previous day, then back.
    await page.getByTestId('eod-previous').focus();
    await page.keyboard.press('Enter');
    const yesterday = shift(today, -1);
    await page.locator(`[data-testid="eod"][data-date="${yesterday}"]`).waitFor();
    await expect(day.textContent()).resolves.toContain(german(yesterday));
    await expect(day.textContent()).resolves.not.toContain('Heute');
    await expect(page.getByTestId('eod-csv').getAttribute('href')).resolves.toContain(`date=${yesterday}`);
    await page.getByTestId('eod-next').focus();
    await page.keyboard.press('Space');
    await page.locator(`[data-testid="eod"][data-date="${today}"]`).waitFor();
    await expect(page.getByTestId('eod-next').isDisabled()).resolves.toBe(true);
  });

  it('shows the headings open with a visible marker, the figures in German, added up in the clerk pattern', async () => {
    const sales = page.locator('[data-testid="eod-totals-EUR"] tr[data-figure="sales"] td');
    await expect(sales.allTextContents()).resolves.toEqual(['1', '7,50 EUR']);
    await expect(page.getByTestId('eod-generated').textContent()).resolves.toMatch(
      /^Erstellt \d\d\.\d\d\.\d{4} \d\d:\d\d$/,
    );
    const groups = page.locator('#eod details');
    await expect(groups.count()).resolves.toBe(3);
    // A marker a clerk sees on every heading: the summary's own list marker, or one drawn before it.
    // (An expression: the test files are compiled without the DOM's types.)
    const markers = await page.evaluate(`[...document.querySelectorAll('#eod details > summary')].map((s) => {
      const before = getComputedStyle(s, '::before').content;
      return getComputedStyle(s).display === 'list-item' || (before !== 'none' && before !== 'normal' && before !== '""');
    })`);
    expect(markers).toEqual([true, true, true]);
    for (const group of await groups.all()) {
      await expect(group.getAttribute('open')).resolves.not.toBeNull();
      const summary = group.locator('summary');
      // A marker a clerk sees: the summary's own list marker or one drawn before it.
      const box = await summary.boundingBox();
      expect(box?.height).toBeGreaterThanOrEqual(44);
      await expect(group.locator('table').isVisible()).resolves.toBe(true);
    }
    await expect(groups.first().textContent()).resolves.toMatch(/^Nach Händler.*Demo Coffee1 · 7,50 EUR/);
    // A heading closes and opens again by keyboard.
    await groups.first().locator('summary').focus();
    await page.keyboard.press('Enter');
    await expect(groups.first().getAttribute('open')).resolves.toBeNull();
    await page.keyboard.press('Enter');
    await expect(groups.first().getAttribute('open')).resolves.not.toBeNull();
    await page.screenshot({ path: join(ARTIFACTS, 'page-end-of-day-german.png') });
    await page.getByTestId('eod-close').click();
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
