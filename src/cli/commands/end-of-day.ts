import { Option, type Command } from 'commander';
import type { ApiEndOfDayAnswer } from '../../ui/index.js';
import { configFor } from '../options.js';
import { usageError } from '../usage.js';
import { printJson } from '../transaction-output.js';

/**
 * `terminal-agent end-of-day`: the day's totals from the running agent's journal
 * (docs/receipts.md, "End of day"), as printer text (default), CSV or JSON; the text and CSV
 * are laid out by the same functions the local API's `format=text|csv` uses.
 */
export function register(program: Command): void {
  program
    .command('end-of-day')
    .description(
      "the day's totals per merchant, method, operator and currency (default: today in receipts.timeZone, else api.timeZone, else the terminal's zone)",
    )
    .option('--date <date>', 'YYYY-MM-DD (default today)')
    .option('--time-zone <zone>', "IANA time zone (default receipts.timeZone, else api.timeZone, else the terminal's)")
    .addOption(
      new Option('--format <format>', 'text, csv or json (default text; json with --json)').choices([
        'text',
        'csv',
        'json',
      ]),
    )
    .addOption(new Option('--width <columns>', 'printer columns of the text').choices(['32', '48']).default('32'))
    .action(
      async (
        opts: {
          date?: string;
          timeZone?: string;
          format?: 'text' | 'csv' | 'json';
          width: '32' | '48';
          json?: boolean;
        },
        cmd: Command,
      ) => {
        if (opts.json && opts.format !== undefined && opts.format !== 'json')
          throw usageError(`--json prints JSON: leave out --format ${opts.format}, or --json`);
        if (opts.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(opts.date))
          throw usageError('--date must be YYYY-MM-DD');
        const format = opts.format ?? (opts.json ? 'json' : 'text');
        const { config } = await configFor(cmd);
        const { LocalApiClient } = await import('../../ui/index.js');
        const client = LocalApiClient.fromConfig(config);
        const q = new URLSearchParams({ format: 'json' });
        if (opts.date !== undefined) q.set('date', opts.date);
        if (opts.timeZone !== undefined) q.set('timeZone', opts.timeZone);
        const { endOfDay } = await client.call<ApiEndOfDayAnswer>('GET', `/api/v1/reports/end-of-day?${q.toString()}`);
        if (format === 'json') {
          printJson({ endOfDay });
          return;
        }
        const { endOfDayCsv, endOfDayText } = await import('../../payments/index.js');
        process.stdout.write(
          format === 'csv' ? endOfDayCsv(endOfDay) : endOfDayText(endOfDay, opts.width === '48' ? 48 : 32),
        );
      },
    );
}
