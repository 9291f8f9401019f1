import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { layoutProblems } from './layout-check.js';

/** The layout checker the counter page's walk relies on: each kind of problem is found, a sound screen has none. */
describe('layout checker', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 400, height: 300 } });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const css = 'body{margin:0;font:16px sans-serif} button{width:60px;height:50px;border:0;padding:0}';
  const kinds = async (body: string): Promise<string[]> => {
    await page.setContent(`<!doctype html><style>${css}</style><body>${body}</body>`);
    return (await layoutProblems(page)).map((p) => `${p.kind} ${p.what.split(' ')[0]}`);
  };

  it('a sound screen has no problem; hidden controls and controls under an overlay are left out', async () => {
    await expect(
      kinds(`<button id="a">a</button> <button id="b">b</button> <button hidden>h</button> <button style="display:none">n</button>
      <div style="position:fixed;left:0;top:0;width:200px;height:100px;background:#fff"><button id="o">o</button></div>`),
    ).resolves.toEqual([]);
  });

  it('finds a control too small to touch', async () => {
    await expect(kinds('<button id="a" style="height:30px">a</button>')).resolves.toEqual(['small button[#a]']);
  });

  it('finds a control off screen, below and to the right', async () => {
    await expect(
      kinds(
        '<button id="a" style="position:absolute;top:280px">a</button><button id="b" style="position:absolute;left:380px">b</button>',
      ),
    ).resolves.toEqual(['outside button[#a]', 'outside button[#b]']);
  });

  it('finds two controls that overlap', async () => {
    await expect(
      kinds('<button id="a">a</button><button id="b" style="margin-left:-20px">b</button>'),
    ).resolves.toEqual(['overlap button[#a]']);
  });

  it('finds a control cut off by its box', async () => {
    await expect(kinds('<div style="height:30px;overflow:hidden"><button id="a">a</button></div>')).resolves.toEqual([
      'cut button[#a]',
    ]);
  });

  it('finds a control covered by something that is not an overlay', async () => {
    await expect(
      kinds(
        '<button id="a">a</button><div style="margin-top:-50px;height:50px;width:100px;position:relative;background:red"></div>',
      ),
    ).resolves.toEqual(['covered button[#a]']);
  });

  it('finds a button whose label does not fit it', async () => {
    await expect(
      kinds('<button id="a" style="white-space:nowrap;overflow:hidden">a label far too long for sixty pixels</button>'),
    ).resolves.toEqual(['clipped button[#a]']);
  });

  it('finds text cut by an ellipsis or a box that hides it, spilling out of its box, or off the screen; text that wraps has none', async () => {
    await expect(
      kinds(`<div id="e" style="width:80px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis">a line far too long for eighty pixels</div>
      <div id="h" style="width:80px;height:20px;overflow:hidden">a line that wraps to four lines here</div>
      <div id="s" style="width:80px;white-space:nowrap">a line spilling out of its box</div>
      <div id="o" style="position:absolute;top:290px;left:0">a line below the screen</div>
      <div style="width:60px;height:24px;overflow:hidden"><span id="c" style="white-space:nowrap">words cut by a parent</span></div>
      <div id="w" style="width:80px">a line that wraps to several lines</div>`),
    ).resolves.toEqual(['text div[#e]', 'text div[#h]', 'text div[#s]', 'text div[#o]', 'text span[#c]']);
  });

  it('text scrolled away in a list, or in a box that scrolls its own words, is reachable; a closed details or a box of a pixel (for screen readers) shows none', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `<li style="height:40px">row ${i}</li>`).join('');
    await expect(
      kinds(`<ol style="height:120px;overflow:auto;margin:0;padding:0;list-style:none">${rows}</ol>
      <h1 style="position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap">Counter</h1>
      <details style="width:80px"><summary style="display:block;min-height:44px">more</summary><span style="white-space:nowrap">words too long for eighty pixels</span></details>
      <pre style="width:80px;height:40px;overflow:auto;margin:0">a receipt line wider than its box\nand\nlonger</pre>`),
    ).resolves.toEqual([]);
  });

  it('a row scrolled away in a list is reachable, not outside; one in view is checked', async () => {
    const rows = Array.from(
      { length: 10 },
      (_, i) => `<li data-id="${i}" style="height:${i === 0 ? 30 : 50}px">row ${i}</li>`,
    ).join('');
    await expect(
      kinds(`<ol style="height:120px;overflow:auto;margin:0;padding:0;list-style:none">${rows}</ol>`),
    ).resolves.toEqual(['small li']);
  });
});
