import { Command, Option } from 'commander';
import type { ApiSaleRequest, ApiTransaction, LocalApiClient } from '../../ui/index.js';
import { configFor } from '../options.js';
import { usageError } from '../usage.js';
import { isFinalState, printJson, printLine, saleExitCode, transactionDetail } from '../transaction-output.js';

interface SaleOptions {
  method: string;
  scenario?: string;
  merchant?: string;
  walletId?: string;
  zip?: string;
  houseNumber?: string;
  orderChannel?: string;
  email?: string;
  phone?: string;
  via?: string;
  orderId?: string;
  orderDescription?: string;
  reference?: string;
  wait: boolean;
  timeout: string;
  pollMs: string;
  json?: boolean;
}

function note(json: boolean | undefined, text: string): void {
  // Progress goes to stderr so that stdout holds only the result.
  if (!json) process.stderr.write(`${text}\n`);
}

/** What the sale is waiting for, as the CLI writes it on stderr while it polls. */
export function progressText(t: ApiTransaction): string {
  switch (t.state) {
    case 'awaiting_customer':
      if (t.scenario === 'MerchantScan') return "waiting for the customer's code at the scanner";
      if (t.qr) return 'waiting for the customer to scan the QR code';
      return 'waiting for the card (insert, tap or swipe; PIN if asked)';
    case 'in_flight':
      // The answer was lost and the agent is looking the sale up (docs/outcomes.md): said as such, like the counter page.
      return t.outcomeBeingChecked === true
        ? 'no answer from the platform: the outcome is being checked; do not repeat the sale'
        : 'sent to the platform, waiting for the answer';
    case 'reversing':
      return 'the outcome was unknown; reversing the sale';
    case 'pending':
      // docs/payments.md, "Wallet QR, consumer scan", expiry.
      return 'the QR code expired: the outcome is being checked with the platform; do not take the payment again';
    default:
      return t.state;
  }
}

/** Polls the transaction until its state is final; Ctrl-C aborts the sale while it waits for the customer. */
async function waitForFinal(
  client: LocalApiClient,
  first: ApiTransaction,
  opts: SaleOptions,
): Promise<ApiTransaction | undefined> {
  const { sleep } = await import('../../core/index.js');
  const deadline = Date.now() + Number(opts.timeout) * 1000;
  const pollMs = Math.max(100, Number(opts.pollMs));
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  let current = first;
  let shown = '';
  let qrShown = false;
  try {
    while (!isFinalState(current.state)) {
      if (interrupted) {
        note(opts.json, 'aborting the sale ...');
        return await client.abortSale(current.clientTransactionId);
      }
      const text = progressText(current);
      if (text !== shown) {
        note(opts.json, text);
        shown = text;
      }
      if (current.qr && !qrShown && !opts.json) {
        qrShown = true;
        const { default: QRCode } = await import('qrcode');
        process.stderr.write(
          await QRCode.toString(current.qr.codeValue, { type: 'terminal', small: true, errorCorrectionLevel: 'M' }),
        );
      }
      if (Date.now() >= deadline) return undefined;
      await sleep(pollMs);
      current = await client.transaction(current.clientTransactionId);
    }
    return current;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

export function register(program: Command): void {
  program
    .command('sale')
    .description('run a sale on the running agent and wait for its outcome')
    .argument(
      '<amount...>',
      'amount as a person types it: 12.34, "12.34 EUR" or 12.34 EUR (default currency from the config)',
    )
    .addOption(
      new Option('-m, --method <method>', 'payment method')
        .choices(['card', 'manual', 'moto', 'walletA', 'walletB'])
        .default('card'),
    )
    .addOption(
      new Option(
        '--scenario <scenario>',
        'wallets: ConsumerScan (QR shown) or MerchantScan (customer code scanned)',
      ).choices(['ConsumerScan', 'MerchantScan']),
    )
    .option('--merchant <id>', 'merchant to sell for (default: the configured one)')
    .option('--wallet-id <code>', "merchant scan: the customer's wallet code, if already known")
    .option('--zip <code>', 'MOTO with address verification: ZIP code')
    .option('--house-number <number>', 'MOTO with address verification: house number')
    .option('--order-channel <channel>', 'MOTO: order channel')
    .option('--email <address>', 'MOTO without address verification: customer e-mail')
    .option('--phone <number>', 'MOTO without address verification: customer phone')
    .addOption(
      new Option('--via <call>', 'wallet merchant scan: process (default) or the terminal QR call').choices([
        'process',
        'qrTerminal',
      ]),
    )
    .option('--order-id <id>', "terminal QR call: the order id (default: the sale's client transaction id)")
    .option('--order-description <text>', 'terminal QR call: the order description')
    .option(
      '--reference <text>',
      'your own reference for the sale (receipt or order number, up to 64 characters); transactions --reference finds it',
    )
    .option('--no-wait', 'return as soon as the sale has started')
    .option('--timeout <seconds>', 'stop waiting after this long (the sale goes on in the agent)', '300')
    .addOption(new Option('--poll-ms <ms>', 'how often to look at the sale while waiting').default('500').hideHelp())
    .action(async (amountParts: string[], opts: SaleOptions, cmd: Command) => {
      if (!/^\d+$/.test(opts.timeout)) throw usageError('--timeout must be a whole number of seconds');
      if (opts.orderDescription !== undefined && opts.orderId === undefined)
        throw usageError('--order-description needs --order-id');
      const { config } = await configFor(cmd);
      const { formatMajor, parseMoney } = await import('../../payments/index.js');
      const { LocalApiClient } = await import('../../ui/index.js');
      const money = parseMoney(amountParts.join(' '), config.payments.defaultCurrency);
      const moto: Record<string, string> = {};
      if (opts.zip !== undefined) moto.zipCode = opts.zip;
      if (opts.houseNumber !== undefined) moto.houseNumber = opts.houseNumber;
      if (opts.orderChannel !== undefined) moto.orderChannel = opts.orderChannel;
      if (opts.email !== undefined) moto.email = opts.email;
      if (opts.phone !== undefined) moto.phone = opts.phone;
      const input: ApiSaleRequest = {
        // commander checked the choices of --method, --scenario and --via.
        method: opts.method as ApiSaleRequest['method'],
        amount: formatMajor(money.amount, money.currency),
        currency: money.currency,
        ...(opts.scenario !== undefined ? { scenario: opts.scenario as ApiSaleRequest['scenario'] } : {}),
        ...(opts.merchant !== undefined ? { merchantId: opts.merchant } : {}),
        ...(opts.walletId !== undefined ? { walletId: opts.walletId } : {}),
        ...(Object.keys(moto).length > 0 ? { moto } : {}),
        ...(opts.via !== undefined ? { via: opts.via as ApiSaleRequest['via'] } : {}),
        ...(opts.reference !== undefined ? { reference: opts.reference } : {}),
        ...(opts.orderId !== undefined
          ? {
              order: {
                orderId: opts.orderId,
                ...(opts.orderDescription !== undefined ? { orderDescription: opts.orderDescription } : {}),
              },
            }
          : {}),
      };
      const client = LocalApiClient.fromConfig(config);
      const started = await client.startSale(input);
      note(opts.json, `sale ${started.clientTransactionId} started: ${started.amountText} ${opts.method}`);
      if (!opts.wait) {
        if (opts.json) printJson({ transaction: started });
        else printLine(transactionDetail(started));
        return;
      }
      const final = await waitForFinal(client, started, opts);
      if (final === undefined) {
        const last = await client.transaction(started.clientTransactionId);
        if (opts.json) printJson({ transaction: last, waiting: 'timed out' });
        else
          printLine(
            `${transactionDetail(last)}\nstill ${last.state} after ${opts.timeout} s; the agent goes on: terminal-agent status ${last.clientTransactionId}`,
          );
        process.exitCode = 3;
        return;
      }
      if (opts.json) printJson({ transaction: final });
      else printLine(transactionDetail(final));
      process.exitCode = saleExitCode(final);
    });
}
