import { Command, Option } from 'commander';
import type { ApiCancelRequest } from '../../ui/index.js';
import { configFor } from '../options.js';
import { operationExitCode, pendingNote, printJson, printLine, transactionDetail } from '../transaction-output.js';

export function register(program: Command): void {
  program
    .command('cancel')
    .description('cancel (void) a sale on the running agent; past the cancel window, refund instead')
    .argument('<transaction>', "the sale's client or server (platform) transaction id")
    .option('--amount <amount>', 'partial cancel, e.g. 5.00 (where the acquirer allows it); default the full amount')
    .addOption(
      new Option('--reason <reason>', 'Functional (void, default) or Technical (reversal)').choices([
        'Functional',
        'Technical',
      ]),
    )
    .option('--approval-code <code>', 'approval code, when the merchant aggregator requires one')
    .action(
      async (
        id: string,
        opts: { amount?: string; reason?: string; approvalCode?: string; json?: boolean },
        cmd: Command,
      ) => {
        const { config } = await configFor(cmd);
        const { LocalApiClient } = await import('../../ui/index.js');
        const { operationAmount } = await import('../operation-amount.js');
        const client = LocalApiClient.fromConfig(config);
        const amount = await operationAmount(client, id, opts.amount);
        const t = await client.operate('cancel', id, {
          ...(amount !== undefined ? { amount } : {}),
          ...(opts.reason !== undefined ? { reason: opts.reason as ApiCancelRequest['reason'] } : {}),
          ...(opts.approvalCode !== undefined ? { approvalCode: opts.approvalCode } : {}),
        });
        if (opts.json) printJson({ transaction: t });
        else printLine([transactionDetail(t), pendingNote(t)].filter(Boolean).join('\n'));
        process.exitCode = operationExitCode(t);
      },
    );
}
