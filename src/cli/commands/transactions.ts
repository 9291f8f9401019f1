import type { Command } from 'commander';
import { configFor } from '../options.js';
import { usageError } from '../usage.js';
import { printJson, printLine, transactionLine } from '../transaction-output.js';

/** Today as the terminal's local date (YYYY-MM-DD). */
function localDate(d: Date = new Date()): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function register(program: Command): void {
  program
    .command('transactions')
    .description("list the journal's transactions (default: today's)")
    .option('--date <date>', 'YYYY-MM-DD, "today" or "all" (default today; all with --reference)', 'today')
    .option('--reference <text>', 'only the sales made with this caller reference')
    .option('--limit <n>', 'at most this many (read page by page)', '100')
    .action(async (opts: { date: string; reference?: string; limit: string; json?: boolean }, cmd: Command) => {
      if (!/^\d{1,6}$/.test(opts.limit) || Number(opts.limit) < 1)
        throw usageError('--limit must be a whole number from 1 to 999999');
      // A reference is looked for on every day unless --date says otherwise: the register may ask the next morning.
      const dateText =
        opts.reference !== undefined && cmd.getOptionValueSource('date') === 'default' ? 'all' : opts.date;
      const date = dateText === 'today' ? localDate() : dateText === 'all' ? undefined : dateText;
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const client = LocalApiClient.fromConfig(config);
      const list = await client.transactions({
        ...(date !== undefined ? { date } : {}),
        ...(opts.reference !== undefined ? { reference: opts.reference } : {}),
        limit: Number(opts.limit),
      });
      if (opts.json) printJson({ transactions: list });
      else if (list.length > 0) printLine(list.map(transactionLine).join('\n'));
      else
        printLine(
          `no transactions${opts.reference !== undefined ? ` with reference ${JSON.stringify(opts.reference)}` : ''}${date ? ` on ${date}` : ''}`,
        );
    });
}
