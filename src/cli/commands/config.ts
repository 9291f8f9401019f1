import type { Command } from 'commander';
import { configFor } from '../options.js';

export function register(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('show')
    .description('print the effective configuration (secrets redacted)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { config: effective, file } = await configFor(cmd);
      const { redactConfig, resolveEndpoints } = await import('../../config/index.js');
      const endpoints = resolveEndpoints(effective);
      process.stdout.write(`${JSON.stringify({ file: file ?? null, endpoints, config: redactConfig(effective) }, null, 2)}\n`);
    });
}
