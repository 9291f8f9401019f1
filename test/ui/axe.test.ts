import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { axeViolations, blocking, describeViolations } from './axe.js';

/** The accessibility check the counter page's walk relies on (test/ui/axe.ts): it finds what blocks a clerk, and a sound page has nothing. */
describe('axe check', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 400, height: 300 } });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const page$ = (body: string) =>
    page.setContent(
      `<!doctype html><html lang="en"><head><title>t</title></head><body><header><h1>Counter</h1></header><main>${body}</main></body></html>`,
    );

  it('a sound page has no violation', async () => {
    await page$('<p style="color:#111;background:#fff">Ready</p><button type="button">Start sale</button>');
    await expect(axeViolations(page)).resolves.toEqual([]);
  });

  it('finds low contrast, an unreachable scrolling list and a nameless button, each with its impact and element', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `<li>row ${i}</li>`).join('');
    await page$(`<p id="pale" style="color:#9ca3af;background:#fff">Approved</p>
      <ol id="list" style="height:60px;overflow:auto">${rows}</ol>
      <button type="button" id="bare"></button>`);
    const found = blocking(await axeViolations(page));
    expect(found.map((v) => `${v.id} ${v.impact ?? ''} ${v.targets.join(',')}`).sort()).toEqual([
      'button-name critical #bare',
      'color-contrast serious #pale',
      'scrollable-region-focusable serious #list',
    ]);
    expect(describeViolations(found)[0]).toMatch(/^button-name \(critical\): .+: #bare$/);
  });

  it('finds a page without a level-one heading or a main landmark (best practice, moderate)', async () => {
    await page.setContent(
      '<!doctype html><html lang="en"><head><title>t</title></head><body><div>Counter</div></body></html>',
    );
    const ids = (await axeViolations(page)).map((v) => `${v.id} ${v.impact ?? ''}`);
    expect(ids).toEqual(expect.arrayContaining(['page-has-heading-one moderate', 'landmark-one-main moderate']));
  });
});
