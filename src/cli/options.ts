import type { Command } from 'commander';
import type { LoadedConfig } from '../config/index.js';

/** Global options every command understands; they become the highest-precedence config layer. */
export interface GlobalOptions {
  config?: string;
  environment?: string;
  dataDir?: string;
  apiPort?: string;
  logLevel?: string;
  json?: boolean;
}

export function addGlobalOptions(program: Command): Command {
  return (
    program
      .option(
        '-c, --config <file>',
        'configuration file (default: $TERMINAL_AGENT_CONFIG, else /etc/terminal-agent/config.json if present, else the demo config/default.json)',
      )
      .option('-e, --environment <name>', 'platform environment: local, demo, na, in, eu')
      .option('--data-dir <dir>', 'data directory (journal, offline queue, local API token)')
      .option('--api-port <port>', 'local API port')
      .option('--log-level <level>', 'log level')
      // Global, so that every command has it; main() also prints errors as JSON under it.
      .option('--json', 'print JSON (errors too: {"error":{"code","message"}} on stderr)')
  );
}

/** Whether the run asked for JSON (`--json` anywhere on the command line). */
export function wantsJson(command: Command): boolean {
  return command.optsWithGlobals<GlobalOptions>().json === true;
}

/**
 * The installed terminal's configuration file the CLI looks for when neither --config nor
 * TERMINAL_AGENT_CONFIG names one (docs/operations.md, "Which configuration file is read").
 * TERMINAL_AGENT_SYSTEM_CONFIG moves it for tests, which never read the machine's /etc.
 */
export async function systemConfigFile(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { SYSTEM_CONFIG_FILE, SYSTEM_CONFIG_VARIABLE } = await import('../config/index.js');
  const moved = env[SYSTEM_CONFIG_VARIABLE];
  return moved !== undefined && moved !== '' ? moved : SYSTEM_CONFIG_FILE;
}

export function flagsFrom(opts: GlobalOptions): Record<string, Record<string, string | number> | string> {
  const flags: Record<string, Record<string, string | number> | string> = {};
  if (opts.environment !== undefined) flags.environment = opts.environment;
  if (opts.dataDir !== undefined) flags.dataDir = opts.dataDir;
  if (opts.apiPort !== undefined) flags.api = { port: Number(opts.apiPort) };
  if (opts.logLevel !== undefined) flags.log = { level: opts.logLevel };
  return flags;
}

/**
 * Loads the configuration with the command's global flags on top. The config module (zod)
 * is loaded here, when a command runs, so that `--help` stays light.
 */
export async function configFor(command: Command): Promise<LoadedConfig> {
  const opts = command.optsWithGlobals<GlobalOptions>();
  const { loadConfig } = await import('../config/index.js');
  return loadConfig({
    ...(opts.config !== undefined ? { file: opts.config } : {}),
    systemFile: await systemConfigFile(),
    flags: flagsFrom(opts),
  });
}
