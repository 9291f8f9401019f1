import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The repository root: the first directory above this file with a package.json and the
 * demo seed. Works from scripts/ (sources under vitest) and dist/scripts/ (built), at any depth.
 */
export function repoRoot(from: string = import.meta.dirname): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'config', 'demo-seed.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no repository root (package.json with config/demo-seed.json) above ${from}`);
    dir = up;
  }
}

/** The compiled CLI, with a clear message when it was not built. */
export function builtCli(repoDir: string): string {
  const bin = join(repoDir, 'dist', 'src', 'cli', 'bin.js');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build with \`npx tsc -p .\` first`);
  return bin;
}

/** The parent's environment without TERMINAL_AGENT_* variables, so none leaks into a child. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TERMINAL_AGENT_')));
}
