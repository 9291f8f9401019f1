import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentError, ErrorCodes } from '../core/index.js';

/** The package's name in its package.json: the folder that holds it is the install folder. */
const PACKAGE_NAME = 'terminal-agent';

let cached: string | undefined;

function isOurPackage(dir: string): boolean {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/**
 * The package's own folder (the checkout, or /opt/terminal-agent), found from this module's
 * place: src/config in a checkout run from sources, dist/src/config when built. Never the
 * working directory: the agent and its commands find their bundled files wherever they are
 * started from (docs/operations.md, "Files the agent finds in its own folder").
 */
export function packageDir(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isOurPackage(dir)) return (cached = dir);
    const up = dirname(dir);
    if (up === dir)
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `config: the installation is incomplete: no package.json named ${PACKAGE_NAME} above ${fileURLToPath(import.meta.url)}`,
      );
    dir = up;
  }
}

/** A file shipped with the package, e.g. `bundledFile('config/environments.json')`. */
export function bundledFile(relative: string): string {
  return join(packageDir(), relative);
}

/**
 * The agent's version, from the package's own package.json (never the working directory's):
 * `--version`, the start log line, `/api/v1/status` and `diag`. "unknown" when the file has none.
 */
export function packageVersion(): string {
  try {
    const version = (JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8')) as { version?: unknown })
      .version;
    return typeof version === 'string' && version !== '' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
