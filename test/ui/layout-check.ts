import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const BROWSER_SCRIPT = join(process.cwd(), 'test/ui/layout-check.browser.js');

/** The smallest touch target, CSS px, both ways (the counter is used with fingers). */
export const MIN_TARGET = 44;

/** What a person can tap or read as a control: buttons, inputs, badges, links, rows that select. */
export const CONTROLS = 'button, input, select, textarea, a[href], summary, .badge, [role="button"], li[data-id]';

/**
 * One problem of the screen as shown: a control that leaves the viewport, is cut off by its
 * box, is covered by something that is not an overlay, overlaps another control, is too
 * small to touch, or (a button, badge or summary) has a label that does not fit it; or text
 * (any element's own words) that is cut, spills out of its box or leaves the viewport.
 */
export interface LayoutProblem {
  kind: 'outside' | 'cut' | 'covered' | 'overlap' | 'small' | 'clipped' | 'text';
  what: string;
  detail: string;
}

/**
 * Checks the page as it is on screen now (docs/counter-page.md, "Local API and counter page").
 * A control counts when it is rendered (not display:none, visibility:hidden or transparent)
 * and not scrolled out of a scrolling list. A control under an overlay (a fixed or absolute
 * box stacked above it: the offline panel, the unknown-outcome screen) is not on screen and
 * is left out; an overlay's controls are only compared with controls of the same overlay.
 * Text is any rendered element's own words, checked whether or not it is a control; text
 * scrolled out of a list that scrolls is reachable and left out.
 */
export async function layoutProblems(
  page: Page,
  selector = CONTROLS,
  minTarget = MIN_TARGET,
): Promise<LayoutProblem[]> {
  const script = readFileSync(BROWSER_SCRIPT, 'utf8');
  // The file is one function expression; the formatter ends it with a semicolon, which a call cannot hold.
  return page.evaluate<LayoutProblem[]>(
    `(${script.trim().replace(/;$/, '')})(${JSON.stringify({ selector, minTarget })})`,
  );
}

/** The problems as lines for an assertion message. */
export function describeProblems(problems: readonly LayoutProblem[]): string[] {
  return problems.map((p) => `${p.kind}: ${p.what} ${p.detail}`);
}
