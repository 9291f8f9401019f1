import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningAgent } from '../../src/agent.js';
import { call } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { until } from '../helpers/wait.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage } from './browser.js';
import { DEMO_STAFF, DEMO_SUPERVISOR, signInCookie } from './staff.js';

/**
 * Cancel or refund by web reachable from the local API and the counter page, against the
 * demo platform (docs/platform-contract.md, "Endpoints"): the platform picks cancel or
 * refund; the answer is the operation's row.
 */
let t: TestAgent;
let agent: RunningAgent;
const auth = (): Record<string, string> => ({ authorization: `Bearer ${agent.localToken}` });

/** Polls the agent and the demo platform every 100 ms for up to 15 s. */
const POLL = { timeoutMs: 15_000, everyMs: 100 };

async function sale(body: object): Promise<string> {
  const r = await call(agent.url, 'POST', '/api/v1/sales', { headers: auth(), body });
  expect(r.status, r.text).toBe(202);
  return r.json.transaction.clientTransactionId as string;
}

async function transaction(id: string): Promise<{ state: string; refundedAmount: number; cancelledAmount: number }> {
  return (await call(agent.url, 'GET', `/api/v1/transactions/${id}`, { headers: auth() })).json.transaction;
}

/**
 * The operation's row once the platform settled it: the strict profile answers a refund
 * `Pending` and completes it a little later, which the agent follows until final.
 */
async function settled(answer: {
  json: { transaction: { clientTransactionId: string; state: string } };
}): Promise<Record<string, unknown>> {
  const row = answer.json.transaction;
  if (row.state !== 'pending') return row;
  return until(
    `web operation ${row.clientTransactionId} settled`,
    () => transaction(row.clientTransactionId),
    (v) => v.state !== 'pending',
    POLL,
  );
}

async function approvedCardSale(amount: string): Promise<string> {
  const id = await sale({ method: 'card', amount });
  await until(
    `card sale ${id} approved`,
    () => transaction(id),
    (v) => v.state === 'approved',
    POLL,
  );
  return id;
}

async function paidWalletSale(amount: string): Promise<string> {
  const id = await sale({ method: 'walletA', scenario: 'ConsumerScan', amount });
  await until(
    `QR of ${id}`,
    () => transaction(id),
    (v) => v.state === 'awaiting_customer',
    POLL,
  );
  agent.demoPlatform?.payments.wallet.pay(id);
  await until(
    `wallet sale ${id} paid`,
    () => transaction(id),
    (v) => v.state === 'approved',
    POLL,
  );
  return id;
}

beforeAll(async () => {
  // Only the refundbyweb call may reach the platform: its refund and cancel calls are refused
  // (set below), so an agent sending refund or cancel instead shows red.
  // Demo Coffee (the default merchant): immediate capture; wallets paid only when the test says so.
  // A short lookup grace and retry cap: a lost answer is settled within the test's patience.
  t = await startTestAgent({
    flags: { sim: { walletPayDelayMs: 0 }, payments: { lookupGraceMs: 1_000, reversalRetryCapMs: 500 } },
    level: 'info',
  });
  agent = t.agent;
  agent.demoPlatform?.faults.set('refund', { status: 409 });
  agent.demoPlatform?.faults.set('cancel', { status: 409 });
});
afterAll(async () => {
  await t?.stop();
});

describe('POST /api/v1/transactions/{id}/refund-by-web', () => {
  it('a captured card sale: the platform refunds, in part then the rest by default', async () => {
    const id = await approvedCardSale('20.00');
    const part = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { amount: '3.00' },
    });
    expect(part.status, part.text).toBe(200);
    expect(await settled(part)).toMatchObject({
      kind: 'refund',
      amount: 300,
      currency: 'EUR',
      state: 'approved',
      relatedClientTransactionId: id,
    });
    expect(await transaction(id)).toMatchObject({ refundedAmount: 300, cancelledAmount: 0 });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(1_700);

    const rest = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: {},
    });
    expect(rest.status, rest.text).toBe(200);
    expect(await settled(rest)).toMatchObject({ amount: 1_700, state: 'approved' });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(0);
  });

  it('a paid walletA sale still cancellable: the platform cancels', async () => {
    const id = await paidWalletSale('10.00');
    const r = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { amount: '4.00' },
    });
    expect(r.status, r.text).toBe(200);
    expect(await settled(r)).toMatchObject({ amount: 400, state: 'approved' });
    expect(await transaction(id)).toMatchObject({ cancelledAmount: 400, refundedAmount: 0 });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(600);
  });

  it("a web shop's order the terminal did not make: looked up at the platform, journaled marked as a web order, refunded by web", async () => {
    const order = agent.demoPlatform?.payments.webOrder({ amount: { amount: 1_800, currency: 'EUR' } });
    const id = order?.clientTransactionId as string;
    const r = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { amount: '8.00' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction).toMatchObject({ kind: 'refund', amount: 800, relatedClientTransactionId: id });
    agent.demoPlatform?.payments.complete(r.json.transaction.clientTransactionId as string);
    await until(
      `web order ${id} refunded`,
      () => transaction(id),
      (v) => v.refundedAmount === 800,
      POLL,
    );
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(1_000);
    const listed = (await call(agent.url, 'GET', '/api/v1/transactions', { headers: auth() })).json
      .transactions as Array<{ clientTransactionId: string; origin?: string; message?: string }>;
    expect(listed.find((v) => v.clientTransactionId === id)).toMatchObject({
      origin: 'web',
      message: expect.stringMatching(/web order/),
    });
  });

  it("another merchant's web order: merchantId names whose token looks it up and gives it back; an unknown merchant is refused", async () => {
    const order = agent.demoPlatform?.payments.webOrder({
      amount: { amount: 3_000, currency: 'EUR' },
      merchantId: 'm-1002',
    });
    const id = order?.clientTransactionId as string;
    const withoutMerchant = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: {},
    });
    expect(withoutMerchant.status).toBe(404);
    const unknown = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { merchantId: 'no-such-merchant' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({
      code: 'AUTH_NO_MERCHANT',
      message: expect.stringMatching(/no-such-merchant is not one of this terminal's merchants/),
    });
    // The amount typed is read in the order's currency, looked up with the same merchant's token.
    const r = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { amount: '30.00', merchantId: 'terminal-app-1002' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction).toMatchObject({ kind: 'refund', amount: 3_000, relatedClientTransactionId: id });
    agent.demoPlatform?.payments.complete(r.json.transaction.clientTransactionId as string);
    await until(
      `web order ${id} given back`,
      async () => agent.demoPlatform?.payments.netCharged(id, 'm-1002'),
      (v) => v === 0,
      POLL,
    );
  });

  it('refuses an approval code (none applies by web), a mistyped amount and an unknown transaction', async () => {
    const id = await approvedCardSale('5.00');
    const code = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { approvalCode: '4711' },
    });
    expect(code.status).toBe(400);
    expect(code.json.error.message).toMatch(/approvalCode/);
    const typo = await call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, {
      headers: auth(),
      body: { amount: '1.234' },
    });
    expect(typo.status).toBe(400);
    const unknown = await call(agent.url, 'POST', '/api/v1/transactions/T-no-such-sale/refund-by-web', {
      headers: auth(),
      body: {},
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('PAYMENT_NOT_FOUND');
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(500);
  });
});

describe('refund by web of a sale made at this terminal: its own staff permission', () => {
  const byWeb = (id: string, cookie: string, body: object = {}) =>
    call(agent.url, 'POST', `/api/v1/transactions/${id}/refund-by-web`, { headers: { cookie }, body });

  it('a clerk with cancel and refund but not payment:refund-by-web is refused, naming the permission, and nothing is given back', async () => {
    const id = await approvedCardSale('7.00');
    const clerk = await signInCookie(agent.url, DEMO_STAFF);
    const r = await byWeb(id, clerk, { amount: '2.00' });
    expect(r.status, r.text).toBe(403);
    expect(r.json.error).toMatchObject({
      code: 'API_FORBIDDEN',
      permission: 'payment:refund-by-web',
      message: expect.stringMatching(
        /staff1 may not cancel or refund a sale of this terminal by web: the permission payment:refund-by-web is needed/,
      ),
    });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(700);
    expect(await transaction(id)).toMatchObject({ refundedAmount: 0, cancelledAmount: 0 });
  });

  it('the supervisor may, and it is logged naming the operator and the sale', async () => {
    const id = await approvedCardSale('9.00');
    const supervisor = await signInCookie(agent.url, DEMO_SUPERVISOR);
    const r = await byWeb(id, supervisor, { amount: '4.00' });
    expect(r.status, r.text).toBe(200);
    expect(await settled(r)).toMatchObject({
      kind: 'refund',
      amount: 400,
      state: 'approved',
      relatedClientTransactionId: id,
    });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(500);
    const line = t.sink
      .records()
      .find((l) => l.msg === 'refund by web of a sale made at this terminal' && l.clientTransactionId === id);
    expect(line).toMatchObject({ operator: 'supervisor1', amount: 400, currency: 'EUR' });
  });

  it("a web shop's order keeps today's rule: the clerk with cancel and refund gives it back", async () => {
    const order = agent.demoPlatform?.payments.webOrder({ amount: { amount: 1_200, currency: 'EUR' } });
    const id = order?.clientTransactionId as string;
    const clerk = await signInCookie(agent.url, DEMO_STAFF);
    const r = await byWeb(id, clerk, { amount: '2.00' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction).toMatchObject({ kind: 'refund', amount: 200, relatedClientTransactionId: id });
    // Journaled now as a web order: the same clerk gives back the rest by web too.
    await settled(r);
    const rest = await byWeb(id, clerk);
    expect(rest.status, rest.text).toBe(200);
  });
});

describe('counter page: cancel or refund by web', () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildPage();
    browser = await launchChromium();
    // The supervisor: the sales given back here were made at this terminal (payment:refund-by-web).
    page = await openCounterPage(browser, agent.url, DEMO_SUPERVISOR, pageErrors);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('takes a transaction id and an amount, and shows the outcome', async () => {
    const id = await approvedCardSale('8.00');
    await page.getByTestId('web-open').click();
    await page.getByTestId('web-panel').waitFor();
    await page.getByTestId('web-id').fill(id);
    await page.getByTestId('web-amount').fill('2.50');
    await page.screenshot({ path: join(ARTIFACTS, 'page-refund-by-web-entry.png') });
    await page.getByTestId('web-send').click();
    await page.locator('[data-testid="web-message"][data-result="approved"]').waitFor();
    await expect(page.getByTestId('web-message').textContent()).resolves.toMatch(/^By web 2\.50 EUR: done/);
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(550);
    await page.screenshot({ path: join(ARTIFACTS, 'page-refund-by-web-done.png') });
  });

  it("offers the terminal's merchants: another merchant's web order is given back with the merchant picked", async () => {
    const order = agent.demoPlatform?.payments.webOrder({
      amount: { amount: 1_500, currency: 'EUR' },
      merchantId: 'm-1002',
    });
    const id = order?.clientTransactionId as string;
    await page.getByTestId('web-close').click();
    await page.getByTestId('web-open').click();
    await page.getByTestId('web-merchant').waitFor();
    await page.getByTestId('web-id').fill(id);
    await page.getByTestId('web-amount').fill('');
    await page.getByTestId('web-merchant').selectOption('terminal-app-1002');
    await page.screenshot({ path: join(ARTIFACTS, 'page-refund-by-web-merchant.png') });
    await page.getByTestId('web-send').click();
    await page.locator('[data-testid="web-message"][data-result]').waitFor();
    const state = await page.getByTestId('web-message').getAttribute('data-result');
    expect(['approved', 'pending']).toContain(state);
    const listed = (await call(agent.url, 'GET', `/api/v1/transactions/${id}`, { headers: auth() })).json.transaction;
    expect(listed).toMatchObject({ origin: 'web', merchantId: 'terminal-app-1002' });
  });

  it("refuses a clerk without payment:refund-by-web a sale of this terminal, naming the permission in the clerk's words", async () => {
    const id = await approvedCardSale('4.00');
    const clerkPage = await openCounterPage(browser, agent.url, DEMO_STAFF, pageErrors);
    try {
      // The sale picked in today's list and given back from its operations panel, as the clerk would.
      await clerkPage.getByTestId('reload').click();
      await clerkPage.getByTestId(`tx-${id}`).click();
      await clerkPage.getByTestId('tx-web').click();
      await clerkPage.getByTestId('web-send').click();
      await clerkPage.locator('[data-testid="web-message"].error').waitFor();
      await expect(clerkPage.getByTestId('web-message').textContent()).resolves.toMatch(
        /^You may not do this: ask a supervisor who has the permission payment:refund-by-web\./,
      );
      await clerkPage.screenshot({ path: join(ARTIFACTS, 'page-refund-by-web-permission.png') });
    } finally {
      await clerkPage.close();
    }
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(400);
  });

  it('an answer lost: "being checked: do not repeat" while nothing can be looked up, then the outcome the platform records; one refund', async () => {
    const id = await approvedCardSale('11.00');
    agent.demoPlatform?.faults.set('refundbyweb', { drop: 'after', times: 1 });
    agent.demoPlatform?.faults.set('status', { status: 500 });
    await page.getByTestId('web-close').click();
    await page.getByTestId('web-open').click();
    await page.getByTestId('web-id').fill(id);
    await page.getByTestId('web-amount').fill('3.00');
    await page.getByTestId('web-send').click();
    await page.locator('[data-testid="web-message"][data-result="in_flight"]').waitFor();
    await expect(page.getByTestId('web-message').textContent()).resolves.toMatch(
      /^By web 3\.00 EUR: being checked at the platform: do not repeat it/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'page-refund-by-web-checking.png') });
    agent.demoPlatform?.faults.clear('status');
    await page.locator('[data-testid="web-message"][data-result="approved"]').waitFor({ timeout: 20_000 });
    await until(
      `refund of ${id} booked`,
      async () => agent.demoPlatform?.payments.netCharged(id),
      (v) => v === 800,
      POLL,
    );
    expect(
      agent.demoPlatform?.payments
        .ledger()
        .filter((e) => e.paymentClientTransactionId === id && e.kind === 'refund')
        .map((e) => e.amount),
    ).toEqual([300]);
    agent.demoPlatform?.faults.clear();
  });

  it('starts from the sale picked in the list (its id neither typed nor shown), and says what went wrong', async () => {
    const id = await approvedCardSale('6.00');
    await page.getByTestId('reload').click();
    await page.getByTestId('web-close').click();
    await page.getByTestId(`tx-${id}`).click();
    await page.getByTestId('tx-web').click();
    await expect(page.getByTestId('web-id').isVisible()).resolves.toBe(false);
    await expect(page.getByTestId('web-sale').textContent()).resolves.toMatch(/^sale 6\.00 EUR · Card/);
    await page.getByTestId('web-amount').fill('60.00');
    await page.getByTestId('web-send').click();
    await page.locator('[data-testid="web-message"].error').waitFor();
    // The amount above what is left: the clerk's sentence with what to do, the agent's words (the amounts) open under it.
    await expect(page.getByTestId('web-message').locator('.error-sentence').textContent()).resolves.toBe(
      'The amount is more than is left on this sale: type less, or leave it empty for all that is left.',
    );
    await expect(page.getByTestId('web-message').textContent()).resolves.toMatch(/6\.00 EUR/);
    await page.getByTestId('web-amount').fill('');
    await page.getByTestId('web-send').click();
    await page.locator('[data-testid="web-message"][data-result="approved"]').waitFor();
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
