import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/** Compiles the counter page's scripts (the same step as the build) into dist/ui/page. */
export function buildPage(): void {
  execFileSync(process.execPath, [join(process.cwd(), 'node_modules/typescript/bin/tsc'), '-p', 'src/ui/page/tsconfig.json'], { stdio: 'pipe' });
}

export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
