import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  /** What `terminal-agent` would exit with (bin.js sets process.exitCode to main()'s result). */
  code: number;
  stdout: string;
  stderr: string;
}

/** Prefix of the variables the configuration reads from the environment. */
const ENV_PREFIX = 'TERMINAL_AGENT_';

/**
 * Where runs look for the installed terminal's file unless a test names one
 * (TERMINAL_AGENT_SYSTEM_CONFIG): a path never created, so no test reads the machine's /etc.
 */
export const NO_SYSTEM_CONFIG = join(tmpdir(), `terminal-agent-no-system-config-${process.pid}`, 'config.json');

const text = (chunk: string | Uint8Array): string =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');

/**
 * Runs `terminal-agent ARGS` in this process through main(), the function bin.js calls,
 * capturing what it writes to stdout and stderr. The one way tests run the CLI.
 *
 * `env` is the whole TERMINAL_AGENT_* environment of the run: the caller's own
 * TERMINAL_AGENT_* variables are hidden while it runs and everything is put back after, so
 * a developer's shell cannot change what a test sees. TERMINAL_AGENT_SYSTEM_CONFIG is
 * NO_SYSTEM_CONFIG unless `env` sets it. Test files run in their own worker
 * processes and the tests inside a file one after the other, so nothing else reads the
 * environment meanwhile.
 */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  for (const key of Object.keys(env)) {
    if (!key.startsWith(ENV_PREFIX)) throw new Error(`runCli env takes ${ENV_PREFIX}* variables only, not ${key}`);
  }
  const saved = Object.entries(process.env).filter(([k]) => k.startsWith(ENV_PREFIX));
  for (const [k] of saved) delete process.env[k];
  Object.assign(process.env, { TERMINAL_AGENT_SYSTEM_CONFIG: NO_SYSTEM_CONFIG }, env);
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += text(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += text(chunk);
    return true;
  });
  try {
    process.exitCode = undefined;
    const code = await main(['node', 'terminal-agent', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
    for (const k of [...Object.keys(env), 'TERMINAL_AGENT_SYSTEM_CONFIG']) delete process.env[k];
    for (const [k, v] of saved) process.env[k] = v;
  }
}
