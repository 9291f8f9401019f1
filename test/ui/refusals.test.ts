import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningAgent } from '../../src/agent.js';
import { en } from '../../src/ui/page/texts-en.js';
import { de } from '../../src/ui/page/texts-de.js';
import { call } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { until } from '../helpers/wait.js';
import { ARTIFACTS, buildPage, launchChromium, signInOnPage } from './browser.js';
import { describeProblems, layoutProblems } from './layout-check.js';
import { DEMO_STAFF, DEMO_SUPERVISOR, DEMO_TRAINEE } from './staff.js';

/** Polls the agent and the demo platform every 100 ms for up to 15 s. */
const POLL = { timeoutMs: 15_000, everyMs: 100 };

/**
 * Refusals where the clerk acts, in the clerk's language, against the whole agent on the demo
 * platform (docs/counter-page.md, "Local API and counter page"): a refund the platform refuses
 * for a missing or wrong supervisor approval code (Demo Books' aggregator requires one) says
 * why and what to do next to the buttons, and its row in today's list reads as an operation
 * that moved nothing, not as a red money row; the trainee sees the buttons and a tap names the
 * permission missing; a sale of today's list is given back by web from its operations panel
 * without the clerk ever seeing its id.
 *
 * The demo realm gives every user the locale en-GB; the German run answers the page's
 * session as the agent does for a clerk whose token says de-DE (the page's language is the
 * session answer's `counter.locale`: docs/counter-page.md, "Local API and counter page",
 * languages). Everything else is the real agent's.
 */
const LANGUAGES = [
  { lang: 'en', locale: 'en-GB', texts: en, amount: (major: number) => `${major.toFixed(2)} EUR` },
  { lang: 'de', locale: 'de-DE', texts: de, amount: (major: number) => `${major.toFixed(2).replace('.', ',')} EUR` },
] as const;

/**
 * Each walk below is a dozen browser steps and three platform calls: about 3 s alone, many times
 * that on a shared two-core machine running Chromium walks beside it.
 */
const WALK_MS = 120_000;
const STEP_MS = 30_000;

/** Red as the page paints a failed state (styles.css): a row that moved nothing must not wear it. */
const RED = 'rgb(185, 28, 28)';

describe.each(LANGUAGES)('refusals where the clerk acts ($lang)', ({ lang, locale, texts, amount }) => {
  let t: TestAgent;
  let agent: RunningAgent;
  let browser: Browser;
  const pageErrors: string[] = [];
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${agent.localToken}` });
  const say = (key: keyof typeof en, vars: Record<string, string> = {}): string =>
    Object.entries(vars).reduce<string>((s, [k, v]) => s.replace(`{${k}}`, v), texts[key]);

  const transaction = async (id: string): Promise<{ state: string; capturedAmount: number }> =>
    (await call(agent.url, 'GET', `/api/v1/transactions/${id}`, { headers: auth() })).json.transaction;
  const rowsOf = async (
    saleId: string,
  ): Promise<
    Array<{ clientTransactionId: string; kind: string; state: string; relatedClientTransactionId?: string }>
  > =>
    (
      (await call(agent.url, 'GET', '/api/v1/transactions', { headers: auth() })).json.transactions as Array<{
        clientTransactionId: string;
        kind: string;
        state: string;
        relatedClientTransactionId?: string;
      }>
    ).filter((r) => r.relatedClientTransactionId === saleId);

  /** A card sale, captured: Demo Coffee captures at once, Demo Books (deferred) is captured here by the token caller. */
  async function capturedSale(major: string, merchantId?: string): Promise<string> {
    const r = await call(agent.url, 'POST', '/api/v1/sales', {
      headers: auth(),
      body: { method: 'card', amount: major, ...(merchantId !== undefined ? { merchantId } : {}) },
    });
    expect(r.status, r.text).toBe(202);
    const id = r.json.transaction.clientTransactionId as string;
    const sale = await until(
      `sale ${id} approved`,
      () => transaction(id),
      (v) => v.state === 'approved',
      POLL,
    );
    if (sale.capturedAmount === 0) {
      const c = await call(agent.url, 'POST', `/api/v1/transactions/${id}/capture`, { headers: auth(), body: {} });
      expect(c.status, c.text).toBe(200);
      await until(
        `sale ${id} captured`,
        () => transaction(id),
        (v) => v.capturedAmount > 0,
        POLL,
      );
    }
    return id;
  }

  /** An 800x480 counter page signed in as `who`, in this run's language, once its event stream is connected. */
  async function openCounterPage(who: { username: string; password: string }): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    // A step that never comes fails naming its locator, well inside the test's own time.
    page.setDefaultTimeout(STEP_MS);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.route('**/session', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { counter?: { locale?: string } };
      if (body.counter !== undefined) body.counter.locale = locale;
      await route.fulfill({ response: res, json: body });
    });
    await page.goto(agent.url);
    await signInOnPage(page, who);
    await page.locator('[data-testid="live-status"][data-connected="true"]').waitFor();
    return page;
  }

  async function openSale(page: Page, id: string): Promise<void> {
    await page.getByTestId('reload').click();
    await page.getByTestId(`tx-${id}`).click();
    await page.locator('[data-testid="tx-ops"][data-loaded="true"]').waitFor();
  }

  beforeAll(async () => {
    buildPage();
    t = await startTestAgent({ flags: { sim: { walletPayDelayMs: 0 } }, level: 'info' });
    agent = t.agent;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it(
    'a refund without the approval code: why and what to do next to the buttons, in the language; its row moved nothing and is not red; the code then refunds',
    async () => {
      const id = await capturedSale('12.00', 'terminal-app-1002');
      const page = await openCounterPage(DEMO_STAFF);
      try {
        await openSale(page, id);
        await page.getByTestId('tx-refund').click();
        await page.getByTestId('tx-op-confirm-yes').click();
        const message = page.locator('[data-testid="tx-op-message"].error .ops-text');
        await message.waitFor();
        // The reason and the fix as the sentence itself, visible without opening anything.
        await expect(message.textContent()).resolves.toBe(say('reason.approvalCodeRequired'));
        await expect(message.isVisible()).resolves.toBe(true);
        if (lang === 'de') await expect(message.textContent()).resolves.not.toMatch(/approval|refund/i);
        // The field the fix names is ready for the code.
        await page.locator('[data-testid="tx-op-approval"]:focus').waitFor();

        // The platform's refusal stays in the journal as the refund's row; the list says it moved nothing.
        const [refused] = await rowsOf(id);
        expect(refused).toMatchObject({ kind: 'refund', state: 'failed' });
        const row = page.getByTestId(`tx-${refused?.clientTransactionId}`);
        await row.waitFor();
        await expect(row.locator('.state').textContent()).resolves.toBe(say('row.refundNotDone'));
        await expect(row.locator('.amt').textContent()).resolves.not.toContain(amount(12));
        await expect(
          row.locator('.state').evaluate((e) => e.ownerDocument.defaultView?.getComputedStyle(e).color),
        ).resolves.not.toBe(RED);
        await expect(row.getAttribute('title')).resolves.toBeNull();
        expect(agent.demoPlatform?.payments.netCharged(id, 'm-1002')).toBe(1_200);
        await page.screenshot({ path: join(ARTIFACTS, `refusal-approval-code-${lang}.png`) });
        // At 800x480 nothing of it is cut, covered or too small to tap (test/ui/layout-check.ts).
        expect(describeProblems(await layoutProblems(page))).toEqual([]);

        // A wrong code says so; the supervisor's code refunds.
        await page.getByTestId('tx-op-approval').fill('0000');
        await page.getByTestId('tx-refund').click();
        await page.getByTestId('tx-op-confirm-yes').click();
        await page
          .locator('[data-testid="tx-op-message"].error .ops-text')
          .filter({ hasText: say('reason.approvalCodeIncorrect') })
          .waitFor();
        await page.getByTestId('tx-op-approval').fill('4711');
        await page.getByTestId('tx-refund').click();
        await page.getByTestId('tx-op-confirm-yes').click();
        await page.locator('[data-testid="tx-op-message"][data-result="approved"]').waitFor();
        await until(
          `refund of ${id} booked`,
          async () => agent.demoPlatform?.payments.netCharged(id, 'm-1002'),
          (v) => v === 0,
          POLL,
        );
      } finally {
        await page.close();
      }
    },
    WALK_MS,
  );

  it(
    'the trainee sees Cancel, Refund and By web; a tap names the permission missing and nothing is written',
    async () => {
      const id = await capturedSale('9.00');
      const page = await openCounterPage(DEMO_TRAINEE);
      try {
        await openSale(page, id);
        for (const b of ['tx-cancel', 'tx-refund', 'tx-web', 'web-open'])
          await expect(page.getByTestId(b).isVisible(), b).resolves.toBe(true);
        // Cancel is not possible on a captured sale anyway: its reason is on the screen, not on hover.
        await expect(page.getByTestId('tx-op-reasons').textContent()).resolves.toContain(
          say('reason.capturedRefundInstead'),
        );
        await expect(page.getByTestId('tx-cancel').getAttribute('title')).resolves.toBeNull();

        await page.getByTestId('tx-refund').click();
        const message = page.locator('[data-testid="tx-op-message"].error .ops-text');
        await message.waitFor();
        await expect(message.textContent()).resolves.toBe(
          say('error.forbiddenPermission', { permission: 'payment:refund' }),
        );
        await page.screenshot({ path: join(ARTIFACTS, `refusal-trainee-${lang}.png`) });
        // At 800x480 nothing of it is cut, covered or too small to tap (test/ui/layout-check.ts).
        expect(describeProblems(await layoutProblems(page))).toEqual([]);

        await page.getByTestId('tx-web').click();
        await page.getByTestId('web-send').click();
        await page.locator('[data-testid="web-message"].error').waitFor();
        await expect(page.getByTestId('web-message').textContent()).resolves.toContain(
          say('error.forbiddenPermission', { permission: 'payment:cancel, payment:refund' }),
        );
        expect(await rowsOf(id)).toEqual([]);
        expect(agent.demoPlatform?.payments.netCharged(id)).toBe(900);
      } finally {
        await page.close();
      }
    },
    WALK_MS,
  );

  it(
    "the supervisor gives a sale of today's list back by web from its operations panel: no id typed or shown, the result shown",
    async () => {
      const id = await capturedSale('8.00');
      const page = await openCounterPage(DEMO_SUPERVISOR);
      try {
        await openSale(page, id);
        await page.getByTestId('tx-web').click();
        const panel = page.getByTestId('web-panel');
        await panel.waitFor();
        await expect(page.getByTestId('web-id').isVisible()).resolves.toBe(false);
        await expect(page.getByTestId('web-sale').textContent()).resolves.toContain(amount(8));
        await expect(panel.innerText()).resolves.not.toContain(id);
        await page.getByTestId('web-amount').fill(lang === 'de' ? '2,00' : '2.00');
        await page.getByTestId('web-send').click();
        await page.locator('[data-testid="web-message"][data-result="approved"]').waitFor();
        await expect(page.getByTestId('web-message').textContent()).resolves.toMatch(
          new RegExp(
            `^${say('web.result', { amount: amount(2), outcome: say('ops.done') }).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
          ),
        );
        await page.screenshot({ path: join(ARTIFACTS, `refusal-by-web-from-list-${lang}.png`) });
        // At 800x480 nothing of it is cut, covered or too small to tap (test/ui/layout-check.ts).
        expect(describeProblems(await layoutProblems(page))).toEqual([]);
        await until(
          `refund by web of ${id} booked`,
          async () => agent.demoPlatform?.payments.netCharged(id),
          (v) => v === 600,
          POLL,
        );
      } finally {
        await page.close();
      }
    },
    WALK_MS,
  );

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
