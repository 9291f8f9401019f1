import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { buildPage, launchChromium, signInOnPage } from './browser.js';
import { CLERK, FakeStaff } from './staff.js';
import { startApi, type Started } from '../helpers/local-api.js';

/**
 * Nothing of one customer reaches the next (docs/counter-page.md, "Local API and counter
 * page", invariant 7): after any outcome, the next sale starts from the default method with
 * every customer field empty. Each method is walked with its customer fields filled, then a
 * second sale is started by only typing an amount: its request must be a plain card sale.
 */

interface FirstSale {
  button: string;
  fill: Record<string, string>;
  expected: Record<string, unknown>;
}

const FIRST_SALES: FirstSale[] = [
  { button: 'method-card', fill: {}, expected: { method: 'card' } },
  { button: 'method-manual', fill: {}, expected: { method: 'manual' } },
  {
    button: 'method-moto',
    fill: { 'moto-email': 'first@customer.example', 'moto-phone': '+491701234567' },
    expected: { method: 'moto', moto: { email: 'first@customer.example', phone: '+491701234567' } },
  },
  {
    button: 'method-moto',
    fill: { 'moto-zip': '10115', 'moto-house': '7a' },
    expected: { method: 'moto', moto: { zipCode: '10115', houseNumber: '7a' } },
  },
  { button: 'method-walletA-qr', fill: {}, expected: { method: 'walletA', scenario: 'ConsumerScan' } },
  {
    button: 'method-walletA-scan',
    fill: { 'wallet-id': 'WA-FIRST-CUSTOMER' },
    expected: { method: 'walletA', scenario: 'MerchantScan', walletId: 'WA-FIRST-CUSTOMER' },
  },
  { button: 'method-walletB-qr', fill: {}, expected: { method: 'walletB', scenario: 'ConsumerScan' } },
  {
    button: 'method-walletB-scan',
    fill: { 'wallet-id': 'WB-FIRST-CUSTOMER' },
    expected: { method: 'walletB', scenario: 'MerchantScan', walletId: 'WB-FIRST-CUSTOMER' },
  },
];

const FIELDS = ['amount', 'moto-zip', 'moto-house', 'moto-email', 'moto-phone', 'wallet-id'];

describe('counter page: the next customer starts clean', () => {
  let s: Started;
  let browser: Browser;

  beforeAll(async () => {
    buildPage();
    s = await startApi({
      pageDirs: defaultPageDirs(),
      extra: { staff: new FakeStaff() },
      config: { api: { port: 0, outcomeSeconds: 1 } },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  async function openPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    await page.goto(s.url);
    await signInOnPage(page, CLERK);
    await page.getByTestId('live-status').and(page.locator('[data-connected="true"]')).waitFor();
    return page;
  }

  /** Starts a sale with what the form holds now; returns the request the agent received. */
  async function start(page: Page, amount: string): Promise<{ id: string; request: Record<string, unknown> }> {
    const before = s.payments.calls.length;
    await page.getByTestId('amount').fill(amount);
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
    const call = s.payments.calls.slice(before).find((c) => c.op === 'startSale');
    if (call === undefined) throw new Error('the page started no sale');
    const sale = [...s.payments.views.values()].at(-1);
    if (sale === undefined) throw new Error('no sale view');
    return { id: sale.clientTransactionId, request: call.arg as Record<string, unknown> };
  }

  /** The platform's outcome reaches the page: approved (or another final state). */
  async function finish(page: Page, id: string, state: 'approved' | 'declined'): Promise<void> {
    const view = s.payments.views.get(id);
    if (view === undefined) throw new Error(`no view of ${id}`);
    s.payments.views.set(id, { ...view, state });
    s.bus.publish('transaction.updated', { clientTransactionId: id, kind: 'sale', status: state });
    await page.locator(`[data-testid="sale-outcome"][data-state="${state}"]`).waitFor();
  }

  async function expectCleanForm(page: Page): Promise<void> {
    await page.getByTestId('start-sale').waitFor();
    for (const field of FIELDS) await expect(page.getByTestId(field).inputValue(), field).resolves.toBe('');
    await expect(page.getByTestId('method-card').getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(page.locator('.method[aria-pressed="true"]').count()).resolves.toBe(1);
  }

  it('after "New sale", every method is followed by a plain card sale carrying nothing of the first customer', async () => {
    const page = await openPage();
    try {
      for (const first of FIRST_SALES) {
        await page.getByTestId(first.button).click();
        for (const [field, value] of Object.entries(first.fill)) await page.getByTestId(field).fill(value);
        const one = await start(page, '12.34');
        expect(one.request).toEqual({ ...first.expected, amount: 1234, currency: 'EUR' });
        await finish(page, one.id, 'approved');
        await page.getByTestId('sale-done').click();
        await expectCleanForm(page);

        // The second customer: the clerk only types the amount.
        const two = await start(page, '5.00');
        expect(two.request, `after ${first.button}`).toEqual({ method: 'card', amount: 500, currency: 'EUR' });
        await finish(page, two.id, 'declined');
        await page.getByTestId('sale-done').click();
        await expectCleanForm(page);
      }
    } finally {
      await page.close();
    }
  });

  it('a final outcome goes away by itself after api.outcomeSeconds, leaving a clean form', async () => {
    const page = await openPage();
    try {
      await page.getByTestId('method-walletB-scan').click();
      await page.getByTestId('wallet-id').fill('WB-LEFT-BEHIND');
      const one = await start(page, '8.00');
      await finish(page, one.id, 'approved');
      // Nobody touches the screen: the panel closes after 1 s (api.outcomeSeconds in this test).
      await page.getByTestId('sale-panel').waitFor({ state: 'hidden', timeout: 10_000 });
      await expectCleanForm(page);
      const two = await start(page, '3.00');
      expect(two.request).toEqual({ method: 'card', amount: 300, currency: 'EUR' });
    } finally {
      await page.close();
    }
  });
});
