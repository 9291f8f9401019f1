import type { Command } from 'commander';
import { configFor } from '../options.js';
import { operationExitCode, pendingNote, printJson, printLine, transactionDetail } from '../transaction-output.js';

export function register(program: Command): void {
  program
    .command('refund')
    .description('refund a sale on the running agent (in full or in part, several partials up to the original)')
    .argument('<transaction>', "the sale's client or server (platform) transaction id")
    .option('--amount <amount>', 'partial refund, e.g. 5.00; default everything still refundable')
    .option('--approval-code <code>', 'approval code, when the merchant aggregator requires one')
    .action(async (id: string, opts: { amount?: string; approvalCode?: string; json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const { operationAmount } = await import('../operation-amount.js');
      const client = LocalApiClient.fromConfig(config);
      const amount = await operationAmount(client, id, opts.amount);
      const t = await client.operate('refund', id, {
        ...(amount !== undefined ? { amount } : {}),
        ...(opts.approvalCode !== undefined ? { approvalCode: opts.approvalCode } : {}),
      });
      if (opts.json) printJson({ transaction: t });
      else printLine([transactionDetail(t), pendingNote(t)].filter(Boolean).join('\n'));
      process.exitCode = operationExitCode(t);
    });
}
