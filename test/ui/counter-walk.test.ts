import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningAgent } from '../../src/agent.js';
import { startDemoAgent, type DemoAgentOverrides } from './demo-agent.js';
import type { TestAgent } from '../helpers/test-agent.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { axeViolations, blocking, describeViolations } from './axe.js';
import { describeProblems, layoutProblems } from './layout-check.js';
import { DEMO_GERMAN, DEMO_STAFF } from './staff.js';

/** The screens the counter runs on (docs/counter-page.md, "Local API and counter page"). */
const SIZES = [
  { width: 800, height: 480 },
  { width: 1280, height: 800 },
  { width: 480, height: 800 },
] as const;

/**
 * The languages walked: who signs in and what the agent is configured with. The page's
 * language is the clerk's token `locale` claim (the demo's `verkauf1` is de-DE, Europe/Berlin),
 * else `api.locale`, which the sign-in screen shows before anyone signs in.
 */
const LANGUAGES: ReadonlyArray<{
  lang: string;
  clerk: { username: string; password: string };
  config: DemoAgentOverrides;
}> = [
  { lang: 'en', clerk: DEMO_STAFF, config: {} },
  { lang: 'de', clerk: DEMO_GERMAN, config: { api: { port: 0, locale: 'de-DE' } } },
];

const WALK = join(ARTIFACTS, 'walk');

/** The smallest text a clerk reads on the 800x480 screen, CSS px. */
const MIN_TEXT_PX = 14;

/** Every shown element whose own words are drawn smaller than MIN_TEXT_PX (evaluated in the page). */
const SMALL_TEXT = `[...document.body.querySelectorAll('*')]
  .filter((e) => [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== ''))
  .filter((e) => e.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }) && e.getBoundingClientRect().width > 1)
  .filter((e) => parseFloat(getComputedStyle(e).fontSize) < ${MIN_TEXT_PX})
  .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' "' + e.textContent.trim().slice(0, 24) + '" ' + getComputedStyle(e).fontSize)`;

/**
 * The counter as a clerk walks it, in each language and at each screen size, against the
 * whole agent (embedded demo platform, simulated reader): at every state axe-core finds
 * nothing serious or critical (WCAG 2.2 A and AA, test/ui/axe.ts) and the layout check
 * nothing (controls and text, test/ui/layout-check.ts). A full-page screenshot of each goes
 * to test-artifacts/walk/<lang>-<w>x<h>-<state>.png, the counts to walk/<lang>-summary.json
 * (docs/counter-page.md, "Local API and counter page", accessibility).
 */
for (const { lang, clerk, config } of LANGUAGES) {
  describe(`counter walk (${lang})`, () => {
    let demo: TestAgent;
    let agent: RunningAgent;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    const summary: Record<string, { blocking: number; moderate: number; layout: number; found: string[] }> = {};

    /**
     * Checks the state at each size (the state stays; only the viewport changes). `seen`: what
     * the clerk must see without scrolling (a result, a question's buttons), wholly on screen
     * and not scrolled out of its box.
     */
    async function check(state: string, seen: readonly string[] = []): Promise<void> {
      const found: string[] = [];
      for (const size of SIZES) {
        const at = `${size.width}x${size.height}`;
        await page.setViewportSize(size);
        // Two frames: the new size is laid out and painted.
        await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
        await page.screenshot({ path: join(WALK, `${lang}-${at}-${state}.png`), fullPage: true });
        const violations = await axeViolations(page);
        const layout = await layoutProblems(page);
        const worst = blocking(violations);
        const unseen: string[] = [];
        for (const testid of seen) if (!(await inView(testid))) unseen.push(`not seen without scrolling: ${testid}`);
        const small = await page.evaluate<string[]>(SMALL_TEXT);
        const lines = [
          ...describeViolations(worst).map((l) => `axe ${l}`),
          ...describeProblems(layout).map((l) => `layout ${l}`),
          ...unseen,
          ...(size.width === 800 ? small.map((l) => `small text: ${l}`) : []),
        ];
        summary[`${at} ${state}`] = {
          blocking: worst.length,
          moderate: violations.length - worst.length,
          layout: layout.length,
          found: lines,
        };
        for (const line of lines) found.push(`${at} ${line}`);
      }
      await page.setViewportSize(SIZES[0]);
      expect.soft(found, state).toEqual([]);
    }

    /** Whether the element is wholly inside the viewport and every box around it that scrolls or clips. */
    async function inView(testid: string): Promise<boolean> {
      return await page.evaluate<boolean>(`((e) => {
        if (e === null) return false;
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        const inside = (b) => r.left >= b.left - 1 && r.top >= b.top - 1 && r.right <= b.right + 1 && r.bottom <= b.bottom + 1;
        if (!inside(new DOMRect(0, 0, document.documentElement.clientWidth, document.documentElement.clientHeight))) return false;
        for (let n = e.parentElement; n !== null && n !== document.body; n = n.parentElement) {
          const s = getComputedStyle(n);
          if ((s.overflowX !== 'visible' || s.overflowY !== 'visible') && !inside(n.getBoundingClientRect())) return false;
        }
        return true;
      })(document.querySelector('[data-testid="${testid}"]'))`);
    }

    async function startSale(method: string, amount: string): Promise<void> {
      await page.getByTestId('amount').fill(amount);
      await page.getByTestId(`method-${method}`).click();
      await page.getByTestId('start-sale').click();
      await page.getByTestId('sale-panel').waitFor();
    }
    const outcome = (state: string) =>
      page.locator(`[data-testid="sale-outcome"][data-state="${state}"]`).waitFor({ timeout: 20_000 });
    const saleId = async (): Promise<string> =>
      (await page.getByTestId('sale-panel').getAttribute('data-transaction-id')) ?? '';
    let approvedId = '';

    beforeAll(async () => {
      buildPage();
      mkdirSync(WALK, { recursive: true });
      demo = await startDemoAgent(config);
      agent = demo.agent;
      browser = await launchChromium();
      page = await browser.newPage({ viewport: SIZES[0] });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(agent.url);
      await page.getByTestId('sign-in-submit').waitFor();
    }, 60_000);

    afterAll(async () => {
      writeFileSync(join(WALK, `${lang}-summary.json`), `${JSON.stringify(summary, null, 1)}\n`);
      await browser?.close();
      await demo?.stop();
    });

    it('sign-in, then the empty form', async () => {
      await check('sign-in');
      await signInOnPage(page, clerk);
      await page.locator('[data-testid="live-status"][data-connected="true"]').waitFor();
      await check('form-empty');
    });

    it('each method with its fields', async () => {
      await page.getByTestId('amount').fill('12.34');
      for (const method of ['card', 'manual', 'moto', 'walletA-qr', 'walletA-scan', 'walletB-qr', 'walletB-scan']) {
        await page.getByTestId(`method-${method}`).click();
        await check(`method-${method}`);
      }
      await page.getByTestId('method-card').click();
    }, 60_000);

    it('an error banner', async () => {
      await page.getByTestId('amount').fill('12.345.6');
      await page.getByTestId('start-sale').click();
      await page.getByTestId('error').waitFor();
      await check('error-banner', ['error']);
      await page.locator('#error-close').click();
    });

    it('a card sale waiting for the card, then approved, its receipt', async () => {
      // The customer takes their time: the sale waits for the card until the clerk aborts.
      agent.simulated?.reader.nextCard({ delayMs: 600_000 });
      await startSale('card', '7.50');
      await page.locator('[data-testid="sale-progress"]:not(:empty)').waitFor();
      await check('card-running');
      await page.getByTestId('abort-sale').click();
      await page.locator('[data-testid="sale-outcome"]:not([hidden])').waitFor({ timeout: 20_000 });
      await page.getByTestId('sale-done').click();

      await startSale('card', '7.50');
      await outcome('approved');
      approvedId = await saleId();
      await check('card-approved', ['sale-outcome', 'sale-done']);
      await page.getByTestId('sale-receipt').click();
      await page.locator('[data-testid="receipt"][data-loaded="customer"]').waitFor();
      await check('receipt');
      await page.getByTestId('receipt-close').click();
      await page.getByTestId('sale-done').click();
    }, 60_000);

    it('a declined sale', async () => {
      agent.simulated?.reader.nextCard({ result: 'decline', delayMs: 20 });
      await startSale('card', '9.99');
      await outcome('declined');
      await check('card-declined', ['sale-outcome', 'sale-done']);
      await page.getByTestId('sale-done').click();
    });

    it('a sale stored offline while the platform is down, and the offline panel', async () => {
      agent.demoPlatform?.reachability.suspend(600);
      try {
        agent.simulated?.reader.nextCard({ entryMode: 'ContactChip', result: 'offlineApproved', delayMs: 20 });
        await startSale('card', '4.20');
        await outcome('offline_stored');
        await check('offline-stored', ['sale-outcome', 'sale-done']);
        await page.getByTestId('sale-done').click();
        await page.getByTestId('offline-badge').click();
        await page.getByTestId('offline-panel').locator('li.oq').first().waitFor();
        await check('offline-panel');
        await page.getByTestId('offline-close').click();
      } finally {
        agent.demoPlatform?.reachability.resume();
      }
    }, 60_000);

    it('operations of a sale, with the refund or cancel confirmation', async () => {
      await page.getByTestId(`tx-${approvedId}`).click();
      await page.locator('[data-testid="tx-receipt"]:not([disabled])').waitFor();
      await check('operations');
      const refund = page.getByTestId('tx-refund');
      await ((await refund.isEnabled()) ? refund : page.getByTestId('tx-cancel')).click();
      await page.getByTestId('tx-op-confirm').waitFor();
      await check('operations-confirm', ['tx-op-confirm-yes', 'tx-op-confirm-no']);
      await page.getByTestId('tx-op-confirm-no').click();
      await page.getByTestId('tx-ops-close').click();
    }, 60_000);

    it('cancel or refund by web, and its answer', async () => {
      await page.getByTestId('web-open').click();
      await page.getByTestId('web-panel').waitFor();
      await check('by-web');
      await page.getByTestId('web-id').fill(approvedId);
      await page.getByTestId('web-send').click();
      await page.locator('[data-testid="web-message"]:not(:empty)').waitFor({ timeout: 20_000 });
      await check('by-web-result', ['web-message']);
      await page.getByTestId('web-close').click();
    }, 60_000);

    it('the menu and the end of day', async () => {
      await page.getByTestId('menu-open').click();
      await page.getByTestId('menu').waitFor();
      await check('menu');
      await page.getByTestId('menu-eod').click();
      await page.locator('[data-testid="eod"][data-date]').waitFor();
      await check('end-of-day');
      await page.getByTestId('eod-close').click();
    }, 60_000);

    it('the list is reached and operated by keyboard: Tab reaches a row, Enter selects it and keeps the focus, Space on close closes its panel', async () => {
      const row = page.getByTestId(`tx-${approvedId}`);
      const focusedRow = () =>
        page.evaluate('document.activeElement?.closest("li[data-id]")?.dataset.testid ?? document.activeElement?.id');
      // From the reload button, the last control of the list's head, Tab goes into the list.
      await page.getByTestId('reload').focus();
      await page.keyboard.press('Tab');
      await expect(focusedRow()).resolves.toMatch(/^tx-/);
      await row.locator('.row').focus();
      await expect(focusedRow()).resolves.toBe(`tx-${approvedId}`);
      // The ring shows where the keyboard is.
      await expect(page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).resolves.toBe('solid');
      await page.keyboard.press('Enter');
      await page.getByTestId('tx-ops').waitFor();
      await expect(row.locator('.row').getAttribute('aria-pressed')).resolves.toBe('true');
      await expect(focusedRow()).resolves.toBe(`tx-${approvedId}`);
      await check('operations-keyboard');
      await page.getByTestId('tx-ops-close').focus();
      await page.keyboard.press('Space');
      await page.getByTestId('tx-ops').waitFor({ state: 'hidden' });
    });

    it('what opens over the page takes the focus and gives it back: the menu, end of day, closed with the keyboard', async () => {
      const focused = () => page.evaluate('document.activeElement?.closest("[data-testid]")?.dataset.testid');
      await page.getByTestId('menu-open').focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('menu').waitFor();
      await expect(focused()).resolves.toBe('menu');
      await page.keyboard.press('Tab');
      await expect(focused()).resolves.toBe('menu-eod');
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="eod"][data-date]').waitFor();
      await expect(focused()).resolves.toBe('eod');
      await page.getByTestId('eod-close').focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('eod').waitFor({ state: 'hidden' });
      await expect(focused()).resolves.toBe('menu-open');
    });

    it("the unknown-outcome screen while the platform's answer is lost", async () => {
      // The sale's answer is lost and the lookups fail: the outcome stays unknown (docs/outcomes.md).
      agent.demoPlatform?.faults.set('process', { drop: 'after', times: 1 });
      agent.demoPlatform?.faults.set('status', { status: 500 });
      await startSale('card', '5.00');
      await page.getByTestId('sale-hold').waitFor({ timeout: 20_000 });
      await check('hold', ['sale-hold']);
      agent.demoPlatform?.faults.clear();
    }, 60_000);

    it('raised no script errors', () => {
      expect(pageErrors).toEqual([]);
    });
  });
}
