import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const AXE_SCRIPT = join(process.cwd(), 'node_modules/axe-core/axe.min.js');

/** The rule sets the counter page is held to: WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices (one main, one h1). */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'] as const;

/** How bad axe rates a violation: a clerk is blocked (critical, serious) or hindered (moderate, minor). */
export type AxeImpact = 'minor' | 'moderate' | 'serious' | 'critical';

/** One rule the screen breaks, with the elements that break it (CSS selectors as axe names them). */
export interface AxeViolation {
  id: string;
  impact: AxeImpact | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core on the page as it is on screen now (docs/counter-page.md, "Local API and
 * counter page", accessibility) and returns what it finds. The script is evaluated once per
 * document (a page loaded again gets it again) from the test, not added as a script tag:
 * the page's Content-Security-Policy allows no inline script, and is tested as it ships.
 */
export async function axeViolations(page: Page, tags: readonly string[] = AXE_TAGS): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(readFileSync(AXE_SCRIPT, 'utf8'));
  const options = JSON.stringify({ runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
  // The test build has no DOM types: the call is evaluated as a string in the page.
  return page.evaluate<AxeViolation[]>(`window.axe.run(document, ${options}).then((r) => r.violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? null,
    help: v.help,
    targets: v.nodes.map((n) => n.target.map(String).join(' ')),
  })))`);
}

/** The violations that block a clerk (serious or critical). */
export function blocking(violations: readonly AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The violations as lines for an assertion message: rule, impact, the elements. */
export function describeViolations(violations: readonly AxeViolation[]): string[] {
  return violations.map((v) => `${v.id} (${v.impact ?? 'no impact'}): ${v.help}: ${v.targets.join(', ')}`);
}
