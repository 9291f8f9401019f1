import type { Command } from 'commander';
import { configFor } from '../options.js';
import { operationExitCode, pendingNote, printJson, printLine, transactionDetail } from '../transaction-output.js';

/**
 * `terminal-agent refund-by-web ID [--amount A] [--merchant M]`: the platform's cancel or refund by web
 * (docs/platform-contract.md, "Endpoints"): the platform picks cancel or refund, and no
 * approval code applies. `--merchant` names whose token looks up and gives back a web shop's order
 * the journal does not hold (default the default merchant). Printed: the operation's row (kind, amount, outcome). Exit 0 done, 3
 * pending at the platform, 2 otherwise, as cancel and refund (README, "Exit codes").
 */
export function register(program: Command): void {
  program
    .command('refund-by-web')
    .description(
      'cancel or refund a sale by web on the running agent: the platform picks cancel or refund; no approval code',
    )
    .argument('<transaction>', 'client transaction id of the sale')
    .option('--amount <amount>', 'partial amount, e.g. 5.00; default everything left (cancellable, else refundable)')
    .option(
      '--merchant <merchant>',
      "merchant of a web shop's order not in the journal (clientId, merchant name or merchant id); default the default merchant",
    )
    .action(async (id: string, opts: { amount?: string; merchant?: string; json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const { operationAmount } = await import('../operation-amount.js');
      const client = LocalApiClient.fromConfig(config);
      const amount = await operationAmount(client, id, opts.amount, opts.merchant);
      const t = await client.operate('refund-by-web', id, {
        ...(amount !== undefined ? { amount } : {}),
        ...(opts.merchant !== undefined ? { merchantId: opts.merchant } : {}),
      });
      if (opts.json) printJson({ transaction: t });
      else printLine([transactionDetail(t), pendingNote(t)].filter(Boolean).join('\n'));
      process.exitCode = operationExitCode(t);
    });
}
