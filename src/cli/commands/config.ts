import type { Command } from 'commander';
import { configFor } from '../options.js';

export function register(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('show')
    .description('print the effective configuration (secrets redacted) as JSON, with the file read and why')
    .action(async (_opts: unknown, cmd: Command) => {
      // JSON with or without --json: the configuration is read best as the JSON it is written in.
      const { config: effective, file, source, reason } = await configFor(cmd);
      const { redactConfig, environmentHosts } = await import('../../config/index.js');
      // Placeholder hosts are shown and named here; `start` refuses them (docs/operations.md, "Environments").
      const { endpoints, placeholderKeys } = environmentHosts(effective);
      const placeholders = placeholderKeys.length > 0 ? { placeholderHosts: placeholderKeys } : {};
      process.stdout.write(
        `${JSON.stringify({ file: file ?? null, fileSource: source, fileReason: reason, endpoints, ...placeholders, config: redactConfig(effective) }, null, 2)}\n`,
      );
    });
}
