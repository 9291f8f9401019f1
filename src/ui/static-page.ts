import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from '../config/index.js';
import { AgentError, ErrorCodes } from '../core/index.js';
import { sendText } from './http-io.js';
import type { Router } from './router.js';

/** The placeholder in index.html replaced by the local token (readable only by same-origin scripts). */
export const TOKEN_PLACEHOLDER = '%%LOCAL_API_TOKEN%%';

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

function escapeAttr(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The counter page at `/` and its scripts and styles at `/assets/<name>` (no token needed, Host checked). */
export function registerPageRoutes(router: Router, opts: { dirs: readonly string[]; token: string }): void {
  router.add('GET', '/', (ctx) => {
    const file = find(opts.dirs, 'index.html');
    if (file === undefined) throw new AgentError(ErrorCodes.API_NOT_FOUND, 'the counter page is not installed');
    const html = readFileSync(file, 'utf8').replaceAll(TOKEN_PLACEHOLDER, escapeAttr(opts.token));
    sendText(ctx.res, 200, 'text/html; charset=utf-8', html, { 'content-security-policy': CSP });
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
    sendText(ctx.res, 200, TYPES[ext] ?? 'application/octet-stream', readFileSync(file), { 'cache-control': 'no-cache' });
    return undefined;
  });
}
