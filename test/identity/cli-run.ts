import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
const BIN = resolve(REPO, 'dist/src/cli/bin.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled CLI (`npm test` builds it first) from the repository root with only
 * the given TERMINAL_AGENT_* variables, so the caller's environment cannot leak in.
 */
export function runCli(args: string[], env: Record<string, string> = {}): CliResult {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build with \`npx tsc -p .\` (npm test does) before running this test`);
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TERMINAL_AGENT_')));
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
