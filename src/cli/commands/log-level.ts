import type { Command } from 'commander';
import { configFor } from '../options.js';
import { printJson, printLine } from '../transaction-output.js';
import { usageError } from '../usage.js';

/**
 * `terminal-agent log-level [LEVEL]`: the running agent's log level, or a new one at once,
 * without a restart, through PUT /api/v1/log-level (docs/operations.md, "Log level"). The
 * change lasts until the agent stops or reloads its configuration (SIGHUP), which sets log.level again.
 */
export function register(program: Command): void {
  program
    .command('log-level')
    .description(
      "show the running agent's log level, or change it until the next start or reload (fatal, error, warn, info, debug, trace, silent)",
    )
    .argument('[level]', 'the new level')
    .action(async (level: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { isLogLevel, LOG_LEVELS } = await import('../../core/index.js');
      if (level !== undefined && !isLogLevel(level))
        throw usageError(`unknown log level ${level.slice(0, 20)}: one of ${LOG_LEVELS.join(', ')}`);
      const { LocalApiClient } = await import('../../ui/index.js');
      const answer = await LocalApiClient.fromConfig(config).logLevel(level);
      if (opts.json) printJson(answer);
      else
        printLine(
          answer.previous !== undefined
            ? `log level ${answer.level} (was ${answer.previous})`
            : `log level ${answer.level}`,
        );
    });
}
