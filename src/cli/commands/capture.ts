import type { Command } from 'commander';
import { configFor } from '../options.js';
import { usageError } from '../usage.js';
import {
  operationExitCode,
  pendingNote,
  printJson,
  printLine,
  transactionDetail,
  transactionLine,
} from '../transaction-output.js';

interface CaptureOptions {
  amount?: string;
  all?: boolean;
  merchant?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('capture')
    .description('capture an authorized sale on the running agent, or every pending one with --all')
    .argument('[transaction]', "the sale's client or server (platform) transaction id")
    .option('--amount <amount>', 'partial capture, e.g. 5.00; default the full authorized amount')
    .option('--all', 'capture every authorized sale not captured yet')
    .option('--merchant <id>', "with --all: only this merchant's sales")
    .action(async (id: string | undefined, opts: CaptureOptions, cmd: Command) => {
      if ((id === undefined) === (opts.all !== true)) throw usageError('give either a transaction id or --all');
      if (opts.all && opts.amount !== undefined) throw usageError('--amount applies to one transaction, not to --all');
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const client = LocalApiClient.fromConfig(config);
      if (id === undefined) {
        const list = await client.captureAll(opts.merchant);
        if (opts.json) printJson({ transactions: list });
        else
          printLine(
            list.length === 0
              ? 'nothing to capture'
              : `captured ${list.length}:\n${list.map(transactionLine).join('\n')}`,
          );
        return;
      }
      const { operationAmount } = await import('../operation-amount.js');
      const amount = await operationAmount(client, id, opts.amount);
      const t = await client.operate('capture', id, amount !== undefined ? { amount } : {});
      if (opts.json) printJson({ transaction: t });
      else printLine([transactionDetail(t), pendingNote(t)].filter(Boolean).join('\n'));
      process.exitCode = operationExitCode(t);
    });
}
