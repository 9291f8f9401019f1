import type { Command } from 'commander';
import { configFor } from '../options.js';
import { operationExitCode, pendingNote, printJson, printLine, transactionDetail } from '../transaction-output.js';

/**
 * `terminal-agent refund-by-web ID [--amount A]`: the platform's cancel or refund by web
 * (docs/platform-contract.md, "Endpoints"): the platform picks cancel or refund, and no
 * approval code applies. Printed: the operation's row (kind, amount, outcome). Exit 0 done, 3
 * pending at the platform, 2 otherwise, as cancel and refund (README, "Exit codes").
 */
export function register(program: Command): void {
  program
    .command('refund-by-web')
    .description('cancel or refund a sale by web on the running agent: the platform picks cancel or refund; no approval code')
    .argument('<transaction>', 'client transaction id of the sale')
    .option('--amount <amount>', 'partial amount, e.g. 5.00; default everything left (cancellable, else refundable)')
    .action(async (id: string, opts: { amount?: string; json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const { operationAmount } = await import('../operation-amount.js');
      const client = LocalApiClient.fromConfig(config);
      const amount = await operationAmount(client, id, opts.amount);
      const t = await client.operate('refund-by-web', id, amount !== undefined ? { amount } : {});
      if (opts.json) printJson({ transaction: t });
      else printLine([transactionDetail(t), pendingNote(t)].filter(Boolean).join('\n'));
      process.exitCode = operationExitCode(t);
    });
}
