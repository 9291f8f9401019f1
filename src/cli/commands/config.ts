import type { Command } from 'commander';
import { configFor } from '../options.js';

export function register(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('show')
    .description('print the effective configuration (secrets redacted)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { config: effective, file } = await configFor(cmd);
      const { redactConfig, environmentHosts } = await import('../../config/index.js');
      // Placeholder hosts are shown and named here; `start` refuses them (docs/operations.md, "Environments").
      const { endpoints, placeholderKeys } = environmentHosts(effective);
      const placeholders = placeholderKeys.length > 0 ? { placeholderHosts: placeholderKeys } : {};
      process.stdout.write(`${JSON.stringify({ file: file ?? null, endpoints, ...placeholders, config: redactConfig(effective) }, null, 2)}\n`);
    });
}
