import type { Command } from 'commander';
import { redactConfig, resolveEndpoints } from '../../config/load.js';
import { configFor } from '../options.js';

export function register(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('show')
    .description('print the effective configuration (secrets redacted)')
    .action((_opts: unknown, cmd: Command) => {
      const { config: effective, file } = configFor(cmd);
      const endpoints = resolveEndpoints(effective);
      process.stdout.write(`${JSON.stringify({ file: file ?? null, endpoints, config: redactConfig(effective) }, null, 2)}\n`);
    });
}
