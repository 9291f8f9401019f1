import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from '../../config/index.js';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { sendText } from './http-io.js';
import type { Router } from './router.js';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Where the page's files are looked for, first match wins: the built scripts
 * (`tsc -p src/ui/page/tsconfig.json` writes dist/ui/page), then the sources (HTML, CSS).
 */
export function defaultPageDirs(): string[] {
  // From the package's own folder, never the working directory (docs/operations.md, "Files the agent finds in its own folder").
  const root = packageDir();
  return [join(root, 'dist', 'ui', 'page'), join(root, 'src', 'ui', 'page')];
}

const ASSET_NAME = /^[a-z0-9-]+\.(js|css)$/;
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

function find(dirs: readonly string[], name: string): string | undefined {
  for (const dir of dirs) {
    const file = join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/**
 * The counter page at `/` and its scripts and styles at `/assets/<name>`: no credential
 * needed and none given (docs/architecture.md, "Invariants" 5). The page opens on its
 * sign-in screen; its API calls then carry the staff session cookie.
 */
export function registerPageRoutes(router: Router, opts: { dirs: readonly string[] }): void {
  router.add('GET', '/', (ctx) => {
    const file = find(opts.dirs, 'index.html');
    if (file === undefined) throw new AgentError(ErrorCodes.API_NOT_FOUND, 'the counter page is not installed');
    sendText(ctx.res, 200, 'text/html; charset=utf-8', readFileSync(file), {
      'content-security-policy': CSP,
      'cache-control': 'no-store',
    });
    return undefined;
  });
  // Browsers ask for it on their own; an empty answer keeps their consoles clean.
  router.add('GET', '/favicon.ico', (ctx) => {
    ctx.res.writeHead(204, { 'cache-control': 'max-age=86400' });
    ctx.res.end();
    return undefined;
  });
  router.add('GET', '/assets/:name', (ctx) => {
    const name = ctx.params.name ?? '';
    const file = ASSET_NAME.test(name) ? find(opts.dirs, name) : undefined;
    if (file === undefined) {
      const hint = name.endsWith('.js') ? ' (build the page: tsc -p src/ui/page/tsconfig.json)' : '';
      throw new AgentError(ErrorCodes.API_NOT_FOUND, `no such page file: ${name.slice(0, 60)}${hint}`);
    }
    const ext = name.slice(name.lastIndexOf('.') + 1);
    sendText(ctx.res, 200, TYPES[ext] ?? 'application/octet-stream', readFileSync(file), {
      'cache-control': 'no-cache',
    });
    return undefined;
  });
}
