import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { offlineApiSource } from '../../src/ui/shared/offline-source.js';
import { ARTIFACTS, buildPage, launchChromium, openCounterPage } from './browser.js';
import { CLERK, FakeStaff, GERMAN_CLERK } from './staff.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { call } from '../helpers/http-client.js';
import type { ApiOfflineAnswer } from '../../src/ui/shared/wire-types.js';
import { localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';

/**
 * The counter page's offline panel over a real queue longer than a page: the first 100
 * sales, then "more" loads the next page (docs/local-api.md, "Paging"), in real Chromium.
 */
describe('counter page: the offline queue in pages', () => {
  let f: LocalFixture;
  let s: Started;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    buildPage();
    f = localFixture({ maxCount: 1_000 });
    for (let i = 0; i < 103; i++) {
      f.clock.now += 1_000;
      storeOfflineSale(f.journal, f.offline, { id: `pp-${String(i).padStart(3, '0')}` });
    }
    s = await startApi({
      pageDirs: defaultPageDirs(),
      dataDir: join(f.dir, 'data'),
      extra: { staff: new FakeStaff(), offline: offlineApiSource(f.offline) },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    f?.close();
  });

  const rows = (page: Page): Promise<string[]> =>
    page
      .getByTestId('offline-items')
      .locator('li.oq')
      .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-testid') ?? ''));

  it('shows the first 100 with a "more" control; it loads the next page, a sale stored meanwhile included once; a reload keeps them all', async () => {
    const page = await openCounterPage(browser, s.url, CLERK, errors);
    s.bus.publish('offline.levels', {});
    await page.getByTestId('offline-badge').click();
    await page.getByTestId('offline-item-pp-099').waitFor();
    expect(await rows(page)).toHaveLength(100);
    await expect(page.getByTestId('offline-item-pp-100').count()).resolves.toBe(0);
    const more = page.getByTestId('offline-more');
    await expect(more.textContent()).resolves.toBe('Show more (100 shown)');
    // The summary counts every stored sale, not only the page shown.
    await expect(page.getByTestId('offline-summary').textContent()).resolves.toBe('103 waiting');
    expect((await more.boundingBox())!.height).toBeGreaterThanOrEqual(40);
    await more.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'page-offline-more.png') });

    // Stored after the first page was read: it comes with the next page, after the others.
    storeOfflineSale(f.journal, f.offline, { id: 'pp-late' });
    await more.click();
    await page.getByTestId('offline-item-pp-late').waitFor();
    const all = await rows(page);
    expect(all).toHaveLength(104);
    expect(new Set(all).size).toBe(104);
    expect(all.slice(-4)).toEqual([
      'offline-item-pp-100',
      'offline-item-pp-101',
      'offline-item-pp-102',
      'offline-item-pp-late',
    ]);
    await expect(more.count()).resolves.toBe(0);
    await expect(page.getByTestId('offline-summary').textContent()).resolves.toBe('104 waiting');

    // An event reloads the panel: it reads as many as were shown, not only the first page.
    storeOfflineSale(f.journal, f.offline, { id: 'pp-later' });
    s.bus.publish('offline.levels', {});
    await page.getByTestId('offline-item-pp-later').waitFor();
    expect(await rows(page)).toHaveLength(105);
    await expect(more.count()).resolves.toBe(0);

    // Closed and opened again: the first page only.
    await page.getByTestId('offline-close').click();
    await page.getByTestId('offline-badge').click();
    await page.getByTestId('offline-more').waitFor();
    expect(await rows(page)).toHaveLength(100);

    // The page's last item is gone from the queue before "more" (nothing the agent does today):
    // the refusal is shown and the control can be tapped again.
    f.journal.db.prepare("DELETE FROM offline_queue WHERE client_id = 'pp-099'").run();
    await page.getByTestId('offline-more').click();
    await page
      .getByTestId('offline-message')
      .filter({ hasText: 'after: no offline sale pp-099 in the queue' })
      .waitFor();
    await page.locator('[data-testid="offline-more"]:not([disabled])').waitFor();
    await page.close();
    expect(errors).toEqual([]);
  });

  it('counts each state in the whole queue, not in the page loaded: the answer and the panel', async () => {
    // The queue now: pp-000..pp-102 without pp-099, pp-late, pp-later (104); the first page
    // ends at pp-100. Declined after upload on the second page only, one needing attention on the first.
    const setState = f.journal.db.prepare('UPDATE offline_queue SET state = ? WHERE client_id = ?');
    for (const id of ['pp-101', 'pp-102', 'pp-late']) setState.run('declined_after_upload', id);
    setState.run('needs_attention', 'pp-000');
    const answer = (await call(s.url, 'GET', '/api/v1/offline?limit=2', { headers: s.auth })).json as ApiOfflineAnswer;
    expect(answer.items).toHaveLength(2);
    expect(answer.offline?.states).toEqual({
      queued: 100,
      uploading: 0,
      uploaded: 0,
      declined_after_upload: 3,
      needs_attention: 1,
    });

    const page = await openCounterPage(browser, s.url, CLERK, errors);
    s.bus.publish('offline.levels', {});
    await page.getByTestId('offline-badge').click();
    await page.getByTestId('offline-more').waitFor();
    await expect(page.getByTestId('offline-item-pp-101').count()).resolves.toBe(0);
    await expect(page.getByTestId('offline-summary').textContent()).resolves.toBe(
      '100 waiting · 1 need attention · 3 declined after upload',
    );
    await page.close();
    expect(errors).toEqual([]);
  });

  it('says "more" in German for a German clerk', async () => {
    const page = await openCounterPage(browser, s.url, GERMAN_CLERK, errors);
    s.bus.publish('offline.levels', {});
    await page.getByTestId('offline-badge').click();
    await page.getByTestId('offline-more').waitFor();
    await expect(page.getByTestId('offline-more').textContent()).resolves.toBe('Mehr anzeigen (100 angezeigt)');
    await page.close();
    expect(errors).toEqual([]);
  });
});
