import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/** Whether every page script in dist/ui/page is newer than its source (then nothing is rebuilt). */
function pageBuilt(): boolean {
  const src = join(process.cwd(), 'src/ui/page');
  const out = join(process.cwd(), 'dist/ui/page');
  return readdirSync(src)
    .filter((f) => f.endsWith('.ts'))
    .every((f) => {
      const js = join(out, f.replace(/\.ts$/, '.js'));
      return existsSync(js) && statSync(js).mtimeMs >= statSync(join(src, f)).mtimeMs;
    });
}

/**
 * Compiles the counter page's scripts (the same step as the build) into dist/ui/page, unless
 * they are up to date: several page test files run at once, and one rewriting the scripts
 * while another's browser loads them would break that page.
 */
export function buildPage(): void {
  if (pageBuilt()) return;
  execFileSync(
    process.execPath,
    [join(process.cwd(), 'node_modules/typescript/bin/tsc'), '-p', 'src/ui/page/tsconfig.json'],
    { stdio: 'pipe' },
  );
}

export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Signs in on the page's sign-in screen (the page opens on it) and waits for the counter. */
export async function signInOnPage(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.getByTestId('sign-in-username').fill(who.username);
  await page.getByTestId('sign-in-password').fill(who.password);
  await page.getByTestId('sign-in-submit').click();
  await page.getByTestId('clerk').waitFor();
}

/**
 * A new 800×480 page on the counter at `url`, signed in as `who`, once its event stream is
 * connected. `pageErrors`, when given, collects the page's uncaught errors.
 */
export async function openCounterPage(
  browser: Browser,
  url: string,
  who: { username: string; password: string },
  pageErrors?: string[],
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
  if (pageErrors !== undefined) page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(url);
  await signInOnPage(page, who);
  await page.locator('[data-testid="live-status"][data-connected="true"]').waitFor();
  return page;
}
