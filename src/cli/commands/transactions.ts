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
    .description('list the journal\'s transactions (default: today\'s)')
    .option('--date <date>', 'YYYY-MM-DD, "today" or "all"', 'today')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (opts: { date: string; limit: string; json?: boolean }, cmd: Command) => {
      if (!/^\d{1,4}$/.test(opts.limit)) throw usageError('--limit must be a whole number from 1 to 1000');
      const date = opts.date === 'today' ? localDate() : opts.date === 'all' ? undefined : opts.date;
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const client = LocalApiClient.fromConfig(config);
      const list = await client.transactions({ ...(date !== undefined ? { date } : {}), limit: Number(opts.limit) });
      if (opts.json) printJson({ transactions: list });
      else printLine(list.length === 0 ? `no transactions${date ? ` on ${date}` : ''}` : list.map(transactionLine).join('\n'));
    });
}
