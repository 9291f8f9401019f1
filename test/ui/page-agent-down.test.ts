import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage } from './browser.js';
import { CLERK, FakeStaff } from './staff.js';
import { startApi, type Started } from '../helpers/local-api.js';

/**
 * The header's badges in real Chromium: the platform badge follows `platform.status` from
 * the agent's one source, and when the agent itself stops answering every badge turns grey
 * with "the agent is not answering" (docs/counter-page.md, "Local API and counter page").
 */
describe('counter page: platform badge and the agent not answering', () => {
  let s: Started;
  let browser: Browser;
  let page: Page;
  let closed = false;

  beforeAll(async () => {
    buildPage();
    s = await startApi({ pageDirs: defaultPageDirs(), extra: { staff: new FakeStaff() } });
    s.bus.publish('device.status', { device: 'reader', state: 'connected', model: 'SIM-R1' });
    browser = await launchChromium();
    page = await openCounterPage(browser, s.url, CLERK);
  });
  afterAll(async () => {
    await browser?.close();
    if (!closed) await s?.close();
  });

  it('the platform badge turns offline with its reason when the agent publishes it, and back', async () => {
    await page.locator('[data-testid="platform-status"].ok').waitFor();
    s.health.reachable = false;
    s.bus.publish('platform.status', { online: false, reason: 'the platform did not answer in time' });
    await page.locator('[data-testid="platform-status"].bad').waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('platform-status').textContent()).resolves.toBe('platform offline');
    s.health.reachable = true;
    s.bus.publish('platform.status', { online: true });
    await page.locator('[data-testid="platform-status"].ok').waitFor({ timeout: 10_000 });
  });

  it('the agent stops: every badge grey and the header says the agent is not answering', async () => {
    await page.getByTestId('device-reader').and(page.locator('.ok')).waitFor();
    await s.close();
    closed = true;
    const note = page.getByTestId('agent-down');
    await note.waitFor({ state: 'visible', timeout: 15_000 });
    await expect(note.textContent()).resolves.toMatch(/agent is not answering/i);
    const classes = await page
      .locator('header.bar .badge:visible')
      .evaluateAll((els) => els.map((e) => `${e.id || e.getAttribute('data-testid')}: ${e.className}`));
    expect(classes.length).toBeGreaterThanOrEqual(3);
    for (const c of classes) {
      expect(c).toMatch(/\boff\b/);
      expect(c).not.toMatch(/\b(ok|bad|warn)\b/);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'page-agent-down.png') });
  });
});
