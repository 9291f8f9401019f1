/**
 * Child process of the online chaos run (scripts/chaos/online/run.ts): a terminal's payments engine
 * built as the agent builds it (device certificate over mTLS, device tokens, the SQLite
 * journal, the provider event relay) with instant in-process peripherals, taking a stream
 * of mixed operations against the demo platform: card sales for both merchants (some
 * declined), walletA / walletB merchant-scan sales with a known walletId (process or the
 * terminal QR call), partial refunds, cancels and captures of earlier sales. Its start-up
 * resolves what the previous run left (PaymentService.recover) before anything else. The
 * parent kills it with SIGKILL at random moments and starts it again on the same journal.
 *
 * Usage: node dist/scripts/chaos/online/child.js '<json options>' (scripts/chaos/online/child-protocol.ts).
 */
import { pino } from 'pino';
import { configSchema } from '../../../src/config/schema.js';
import { createLogger, describeError, isAgentError } from '../../../src/core/index.js';
import { EventBus } from '../../../src/events/bus.js';
import { createEventRelay } from '../../../src/events/relay.js';
import { Journal, PaymentService, type JournalRow, type SaleRequest } from '../../../src/payments/index.js';
import { createDemoClient } from '../../lib/demo-client.js';
import { instantPeripherals } from '../../lib/instant-peripherals.js';
import { seededRandom } from '../lib/seeded-random.js';
import { MERCHANTS, SUPERVISOR_CODE, chaosChildOptionsSchema } from './child-protocol.js';

const say = (line: string): void => {
  // A pipe write of a short line is synchronous on Linux: once this returns, the parent can read it.
  process.stdout.write(`${line}\n`);
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Rows still moving: the stream is settled when none is left. */
const OPEN_STATES = ['created', 'awaiting_customer', 'in_flight', 'reversing'] as const;

async function main(): Promise<void> {
  const opts = chaosChildOptionsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const random = seededRandom(opts.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const log = createLogger({ level: 'warn', pretty: false, destination: pino.destination({ dest: 2, sync: true }) });
  const config = configSchema.parse({
    dataDir: opts.dataDir,
    offline: { enabled: false },
    payments: { captureMode: 'deferred', lookupGraceMs: opts.lookupGraceMs, reversalRetryCapMs: 1_000 },
  });
  const journal = new Journal({ dataDir: opts.dataDir });
  const client = await createDemoClient({ ...opts, log, headersTimeoutMs: opts.headersTimeoutMs, availabilityTimeoutMs: 1_000 });
  const bus = new EventBus((err) => log.warn({ err: describeError(err) }, 'event listener failed'));
  const service = new PaymentService({ journal, platform: client.platform, peripherals: instantPeripherals(), bus, log, config, retryBaseMs: 50 });
  // walletB merchant scans are Initialized first: the relay follows them to their final status.
  const relay = createEventRelay({
    store: service,
    fetchStatus: (id, merchantId) => client.platform.status(id, merchantId !== undefined ? { merchantId } : undefined) as Promise<Record<string, unknown>>,
    bus,
    log,
    policy: { fastIntervalMs: 200, failureBackoff: { baseMs: 100, capMs: 1_000 } },
  });

  const recovered = await service.recover();
  relay.start();
  let sales = journal.list({ kind: 'sale' }).length;
  say(`READY ${sales} ${JSON.stringify(recovered)}`);

  const settle = async (): Promise<number> => {
    const until = performance.now() + opts.settleTimeoutMs;
    for (;;) {
      await service.idle();
      const open = journal.inStates([...OPEN_STATES]).length;
      if (open === 0 || performance.now() > until) return open;
      await sleep(100);
    }
  };
  const stop = async (): Promise<void> => {
    relay.stop();
    await service.stop();
    journal.close();
    await client.close();
  };

  if (opts.final) {
    const open = await settle();
    say(`SETTLED ${JSON.stringify({ open })}`);
    await stop();
    return;
  }

  const approvedSales = (filter: (r: JournalRow) => boolean): JournalRow[] =>
    journal.list({ kind: 'sale', states: ['approved'], limit: 200 }).filter(filter);

  const sale = async (): Promise<void> => {
    const method = pick(['card', 'card', 'card', 'walletA', 'walletB'] as const);
    const merchantId = pick(MERCHANTS);
    let amount = 100 + Math.floor(random() * 19_900);
    // The demo platform declines card amounts ending in 51.
    if (method === 'card' && random() < 0.12) amount = Math.floor(amount / 100) * 100 + 51;
    else if (amount % 100 === 51) amount++;
    const req: SaleRequest =
      method === 'card'
        ? { method, amount, currency: 'EUR', merchantId }
        : {
            method,
            scenario: 'MerchantScan',
            amount,
            currency: 'EUR',
            merchantId,
            walletId: `${method === 'walletA' ? 'WA' : 'WB'}-${Math.floor(random() * 1e9)}`,
            ...(random() < 0.25 ? { via: 'qrTerminal' as const } : {}),
          };
    for (;;) {
      try {
        const started = await service.startSale(req);
        say(`SALE ${++sales} ${started.clientTransactionId}`);
        const done = await started.done;
        say(`DONE ${started.clientTransactionId} ${done.state}`);
        return;
      } catch (err) {
        // Another worker's card sale holds the reader for a moment.
        if (isAgentError(err, 'PAYMENT_BUSY')) await sleep(1);
        else throw err;
      }
    }
  };

  const operate = async (kind: 'refund' | 'cancel' | 'capture'): Promise<void> => {
    const candidates =
      kind === 'capture'
        ? approvedSales((r) => r.method === 'card' && r.capturedAmount === 0 && /^accepted$/i.test(r.platformStatus ?? ''))
        : approvedSales((r) => r.amount - r.cancelledAmount - r.refundedAmount > 0);
    if (candidates.length === 0) return;
    const target = pick(candidates);
    const left = target.amount - target.cancelledAmount - target.refundedAmount;
    const code = target.merchantId === 'm-1002' ? { approvalCode: SUPERVISOR_CODE } : {};
    const partial = Math.max(1, Math.floor(left * (0.1 + random() * 0.5)));
    try {
      const view =
        kind === 'refund'
          ? await service.refund(target.clientTransactionId, { amount: partial, ...code })
          : kind === 'cancel'
            ? await service.cancel(target.clientTransactionId, { ...(random() < 0.5 && target.merchantId === 'm-1001' ? { amount: partial } : {}), ...code })
            : await service.capture(target.clientTransactionId);
      say(`OP ${kind} ${target.clientTransactionId} ${view.state}`);
    } catch (err) {
      // Rule refusals (a captured card sale is refunded, not cancelled ...) and platform refusals are expected.
      say(`OP ${kind} ${target.clientTransactionId} ${isAgentError(err) ? err.code : 'ERROR'}`);
    }
  };

  // Sales taken by the workers, counted when chosen so that the stream stops at exactly opts.sales.
  let chosen = sales;
  const worker = async (): Promise<void> => {
    while (chosen < opts.sales) {
      const r = random();
      if (r < 0.62) {
        chosen++;
        await sale();
      } else if (r < 0.8) await operate('refund');
      else if (r < 0.92) await operate('cancel');
      else await operate('capture');
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, () => worker()));
  say('SALES_DONE');
  const open = await settle();
  say(`SETTLED ${JSON.stringify({ open })}`);
  await stop();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    say(`ERROR ${describeError(err)}`);
    process.stderr.write(`chaos-child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);
