import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningAgent } from '../../src/agent.js';
import type { DemoPlatform } from '../../src/sim/platform/server.js';
import { de } from '../../src/ui/page/texts-de.js';
import { en } from '../../src/ui/page/texts-en.js';
import { reviveDemoPlatform } from '../helpers/demo-platform.js';
import type { TestAgent } from '../helpers/test-agent.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { startDemoAgent } from './demo-agent.js';
import { DEMO_STAFF } from './staff.js';

/**
 * The truth at a glance (docs/counter-page.md, "Local API and counter page", headlines): the
 * whole agent on the embedded demo platform, driven from the counter page in headless Chromium
 * to each state a clerk meets, in English and in German. Each headline is exactly what the
 * agent knows (captured or only authorized, stored offline or sent, being checked), the row
 * of today's list says the same, and nothing of an earlier state is left on screen.
 *
 * German: the demo realm gives every clerk `locale: en-GB`, so the German run answers the
 * page's GET /session with the locale a German clerk's token gives (`de-DE`), as the agent
 * would for that clerk; everything else is the agent's own answer.
 */
const LANGUAGES = [
  { lang: 'en', locale: undefined, words: en },
  { lang: 'de', locale: 'de-DE', words: de },
] as const;

describe.each(LANGUAGES)('counter page headlines ($lang)', ({ lang, locale, words }) => {
  let demo: TestAgent;
  let agent: RunningAgent;
  let platform: DemoPlatform;
  let revived: DemoPlatform | undefined;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildPage();
    // Outcomes stay until "New sale" (api.outcomeSeconds 0): what is on screen after an upload is looked at.
    demo = await startDemoAgent({ api: { port: 0, outcomeSeconds: 0 }, platform: { connectTimeoutMs: 1_000 } });
    agent = demo.agent;
    if (agent.demoPlatform === undefined) throw new Error('no embedded demo platform');
    platform = agent.demoPlatform;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    if (locale !== undefined) {
      await page.route('**/session', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { counter?: { locale: string } };
        if (body.counter !== undefined) body.counter.locale = locale;
        await route.fulfill({ response, json: body });
      });
    }
    await page.goto(agent.url);
    await signInOnPage(page, DEMO_STAFF);
    await page.locator('[data-testid="live-status"][data-connected="true"]').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    await revived?.stop();
  });

  const outcome = () => page.getByTestId('sale-outcome');
  const saleId = async (): Promise<string> =>
    (await page.getByTestId('sale-panel').getAttribute('data-transaction-id')) ?? '';
  const rowState = (id: string) => page.getByTestId(`tx-${id}`).locator('.state');

  async function cardSale(amount: string, merchant?: string): Promise<void> {
    if (merchant !== undefined) await page.getByTestId('merchant').selectOption({ label: merchant });
    await page.getByTestId('amount').fill(amount);
    await page.getByTestId('method-card').click();
    await page.getByTestId('start-sale').click();
    await page.getByTestId('sale-panel').waitFor();
  }

  async function newSale(): Promise<void> {
    await page.getByTestId('sale-done').click();
    await page.getByTestId('sale-panel').waitFor({ state: 'hidden' });
  }

  it('a sale the platform captured: "approved and captured", on the panel and its row; the row\'s title has its time, no stamp', async () => {
    await page.getByTestId('merchant').waitFor();
    const coffee =
      (await page.getByTestId('merchant').locator('option').allTextContents()).find((o) =>
        o.startsWith('Demo Coffee'),
      ) ?? 'Demo Coffee';
    await cardSale(lang === 'en' ? '7.50' : '7,50', coffee);
    await outcome().filter({ hasText: words['outcome.approvedCaptured'] }).waitFor({ timeout: 20_000 });
    await expect(outcome().textContent()).resolves.toBe(words['outcome.approvedCaptured']);
    const id = await saleId();
    expect(agent.payments.list({ limit: 5 }).find((t) => t.clientTransactionId === id)).toMatchObject({
      state: 'approved',
      capturedAmount: 750,
    });
    // The agent's reason is behind "details", no sentence of its own under the headline.
    await expect(page.getByTestId('sale-message').innerText()).resolves.toBe(words['ops.details']);
    await rowState(id).filter({ hasText: words['state.approvedCaptured'] }).waitFor();
    await expect(rowState(id).textContent()).resolves.toBe(words['state.approvedCaptured']);
    await page.screenshot({ path: join(ARTIFACTS, `headline-${lang}-captured.png`) });
    await newSale();

    await page.getByTestId(`tx-${id}`).click();
    await page.getByTestId('tx-ops').waitFor();
    const title = (await page.locator('#ops-title').textContent()) ?? '';
    expect(title).toContain(words['state.approvedCaptured']);
    expect(title).toMatch(/· \d{2}:\d{2}$/);
    expect(title).not.toMatch(/\d{4}-\d{2}-\d{2}|T\d{2}:|[+-]\d{2}:\d{2}$/);
    await page.getByTestId('tx-ops-close').click();
  });

  it('a sale only authorized (the merchant\'s acquirer captures later): "authorized, capture later"', async () => {
    await cardSale(lang === 'en' ? '8.20' : '8,20', 'Demo Books');
    await outcome().filter({ hasText: words['outcome.authorized'] }).waitFor({ timeout: 20_000 });
    await expect(outcome().textContent()).resolves.toBe(words['outcome.authorized']);
    const id = await saleId();
    expect(agent.payments.list({ limit: 5 }).find((t) => t.clientTransactionId === id)).toMatchObject({
      state: 'approved',
      capturedAmount: 0,
    });
    await rowState(id).filter({ hasText: words['state.authorized'] }).waitFor();
    await expect(rowState(id).textContent()).resolves.toBe(words['state.authorized']);
    await page.screenshot({ path: join(ARTIFACTS, `headline-${lang}-authorized.png`) });
    await newSale();
    const coffee =
      (await page.getByTestId('merchant').locator('option').allTextContents()).find((o) =>
        o.startsWith('Demo Coffee'),
      ) ?? 'Demo Coffee';
    await page.getByTestId('merchant').selectOption({ label: coffee });
  });

  it('its answer lost: "outcome being checked, do not hand over goods" while the agent looks it up, not "Authorizing"; the platform badge stays green', async () => {
    // Every look at the platform badge from here on (its words and colour), in the page itself.
    // (Script text: the test program is not typed for the browser.)
    await page.evaluate(`(() => {
      const badge = document.getElementById('platform');
      const seen = [];
      window.badgeSeen = seen;
      new MutationObserver(() => seen.push(badge.className + '|' + badge.textContent)).observe(badge, { attributes: true, childList: true, characterData: true, subtree: true });
    })()`);
    platform.faults.set('process', { drop: 'after', times: 1 });
    // The lookups answer slowly: the sale stays being checked for a while.
    platform.faults.set('status', { latencyMs: 1_500, times: 2 });
    try {
      await cardSale(lang === 'en' ? '9.10' : '9,10');
      const checking = page.locator('[data-testid="sale-outcome"][data-state="in_flight"]');
      await checking.waitFor({ timeout: 20_000 });
      await expect(checking.textContent()).resolves.toBe(words['outcome.beingChecked']);
      await expect(page.getByTestId('sale-progress').textContent()).resolves.toBe(words['pending.lookup']);
      await page.screenshot({ path: join(ARTIFACTS, `headline-${lang}-being-checked.png`) });
      await outcome().filter({ hasText: words['outcome.approvedCaptured'] }).waitFor({ timeout: 20_000 });
      await expect(page.getByTestId('sale-progress').textContent()).resolves.toBe('');
    } finally {
      platform.faults.clear('process');
      platform.faults.clear('status');
    }
    const seen = await page.evaluate<string[]>('window.badgeSeen');
    expect(seen.filter((s) => s.split('|')[0]?.includes('bad'))).toEqual([]);
    await expect(page.getByTestId('platform-status').textContent()).resolves.toBe(words['status.online']);
    await newSale();
  });

  it('stored offline, then sent: the headline follows the upload, no offline sentence or "platform not reachable" is left', async () => {
    await platform.stop();
    await page.locator('[data-testid="platform-status"].bad').waitFor({ timeout: 15_000 });
    await expect(page.getByTestId('platform-status').textContent()).resolves.toBe(words['status.offline']);

    agent.simulated?.reader.nextCard({ entryMode: 'ContactChip', result: 'offlineApproved', delayMs: 20 });
    await cardSale(lang === 'en' ? '19.99' : '19,99');
    await outcome().filter({ hasText: words['outcome.storedOffline'] }).waitFor({ timeout: 20_000 });
    const id = await saleId();
    await expect(page.getByTestId('sale-message').innerText()).resolves.toBe(words['ops.details']);
    await rowState(id).filter({ hasText: words['state.storedOffline'] }).waitFor();
    await expect(rowState(id).textContent()).resolves.toBe(words['state.storedOffline']);
    await page.screenshot({ path: join(ARTIFACTS, `headline-${lang}-stored-offline.png`) });

    // "Send now" while the platform is away: its answer says so, with the one sale waiting.
    await page.getByTestId('offline-badge').click();
    await page.getByTestId('offline-panel').waitFor();
    await page.getByTestId('offline-flush').click();
    const notReachable = words['flush.offline'].replace('{remaining}', '1');
    await page.getByTestId('offline-message').filter({ hasText: notReachable }).waitFor({ timeout: 15_000 });

    // The same platform comes back where it was and the queue sends the sale.
    revived = await reviveDemoPlatform(platform);
    const report = await agent.offline.uploader.flush();
    expect(report).toMatchObject({ uploaded: 1 });

    await outcome().filter({ hasText: words['outcome.sentCaptured'] }).waitFor({ timeout: 20_000 });
    await expect(outcome().textContent()).resolves.toBe(words['outcome.sentCaptured']);
    await expect(page.getByTestId('sale-message').innerText()).resolves.toBe(words['ops.details']);
    await rowState(id).filter({ hasText: words['state.sentCaptured'] }).waitFor();
    await expect(rowState(id).textContent()).resolves.toBe(words['state.sentCaptured']);
    // Nothing of "the platform is not reachable, 1 waiting" is left beside a queue that sent it.
    const oneWaiting = words['queue.waiting'].replace('{count}', '1');
    await page.getByTestId('offline-summary').filter({ hasNotText: oneWaiting }).waitFor({ timeout: 15_000 });
    await expect(page.getByTestId('offline-message').textContent()).resolves.toBe('');
    await expect(page.getByTestId('offline-summary').textContent()).resolves.toBe(words['queue.noneWaiting']);
    await page.locator('[data-testid="platform-status"].ok').waitFor({ timeout: 40_000 });
    await expect(page.getByTestId('platform-status').textContent()).resolves.toBe(words['status.online']);
    await page.screenshot({ path: join(ARTIFACTS, `headline-${lang}-sent.png`) });
    await page.getByTestId('offline-close').click();
    await newSale();
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
