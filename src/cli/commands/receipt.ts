import { Option, type Command } from 'commander';
import type { ApiReceiptAnswer } from '../../ui/index.js';
import { configFor } from '../options.js';
import { printJson } from '../transaction-output.js';

/**
 * `terminal-agent receipt ID`: a final transaction's receipt from the running agent
 * (docs/receipts.md): printer text by default, laid out by the same function the local API's
 * `format=text` uses; `--json` prints the receipt's data.
 */
export function register(program: Command): void {
  program
    .command('receipt')
    .description('print the receipt of a final transaction (sale, refund, cancel, capture)')
    .argument('<transaction>', 'a client or server (platform) transaction id')
    .addOption(new Option('--copy <copy>', 'which copy').choices(['customer', 'merchant']).default('customer'))
    .addOption(new Option('--width <columns>', 'printer columns').choices(['32', '48']).default('32'))
    .action(
      async (id: string, opts: { copy: 'customer' | 'merchant'; width: '32' | '48'; json?: boolean }, cmd: Command) => {
        const { config } = await configFor(cmd);
        const { LocalApiClient } = await import('../../ui/index.js');
        const client = LocalApiClient.fromConfig(config);
        const { receipt } = await client.call<ApiReceiptAnswer>(
          'GET',
          `/api/v1/transactions/${encodeURIComponent(id)}/receipt?copy=${opts.copy}&format=json`,
        );
        if (opts.json) {
          printJson({ receipt });
          return;
        }
        const { receiptText } = await import('../../payments/index.js');
        process.stdout.write(receiptText(receipt, opts.width === '48' ? 48 : 32));
      },
    );
}
