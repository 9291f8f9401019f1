/**
 * Child process of the offline kill test and of scripts/chaos/offline/run.ts: takes a burst of
 * offline card sales the way the payments engine does (journal row first, then the journal
 * update and the enqueue in one transaction, then "approved" to the customer) while the
 * uploader drains the queue to the demo platform. It is killed with SIGKILL at random
 * points and started again on the same data directory.
 *
 * Usage: node dist/scripts/chaos/offline/child.js '<json options>'
 * stdout, one line each, written after the fact is durable:
 *   READY | APPROVED <id> <amount> | SETTLED <id> <state> | DRAINED <json counts>
 */
import { createLogger } from '../../../src/core/index.js';
import { EventBus } from '../../../src/events/bus.js';
import { configSchema } from '../../../src/config/schema.js';
import { createOffline } from '../../../src/offline/index.js';
import { Journal, JournalWriter, offlineSaleReports } from '../../../src/payments/index.js';
import type { ProcessRequest } from '../../../src/platform/index.js';
import { createDemoClient } from '../../lib/demo-client.js';
import { burstAmount, burstOptionsSchema } from './child-options.js';

function body(id: string, amount: number, clientDateTime: string): ProcessRequest {
  return {
    clientDateTime,
    channel: 'instore',
    clientNewTransactionId: id,
    authorizationAmount: { amount, currency: 'EUR' },
    entryMode: 'ContactlessChip',
    instrument: {
      instrumentType: 'card',
      card: {
        maskedPan: '476173******0010',
        scheme: 'visa',
        expiry: '2812',
        encryptedData: 'B0B0CAFE00112233445566778899AABB',
        ksn: 'FFFF9876543210E00001',
      },
    },
  };
}

const say = (line: string): void => {
  // On Linux a pipe write is synchronous: once this returns, the parent can read it.
  process.stdout.write(`${line}\n`);
};

async function main(): Promise<void> {
  const opts = burstOptionsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const log = createLogger({ level: 'warn', destination: process.stderr });
  const config = configSchema.parse({
    offline: { uploadConcurrency: opts.uploadConcurrency, maxCount: 100_000, maxTotal: { EUR: 1e12 } },
  });
  const journal = new Journal({ dataDir: opts.dataDir });
  const client = await createDemoClient({ ...opts, log, headersTimeoutMs: 2_000, availabilityTimeoutMs: 1_000 });
  const bus = new EventBus();
  const offline = createOffline({
    db: journal.db,
    reports: offlineSaleReports(new JournalWriter(journal, bus), log),
    platform: client.platform,
    bus,
    log,
    config: config.offline,
    lookupGraceMs: opts.lookupGraceMs,
    backoff: { baseMs: 10, capMs: 100 },
  });
  bus.on('offline.item', (e) => {
    if (e.data.state !== 'queued') say(`SETTLED ${e.data.clientTransactionId} ${e.data.state}`);
  });
  offline.uploader.start();
  say('READY');

  if (opts.drain) {
    for (;;) {
      const report = await offline.uploader.flush();
      if (report.remaining === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await offline.uploader.stop();
    const counts = offline.levels().states;
    say(`DRAINED ${JSON.stringify(counts)}`);
    journal.close();
    await client.close();
    return;
  }

  for (let n = 0; n < opts.sales; n++) {
    const id = `${opts.prefix}-${opts.run}-${n}`;
    const amount = burstAmount(opts.run, n);
    const clientDateTime = new Date().toISOString();
    // Write-ahead: the row exists before anything else (docs/architecture.md, "Flows").
    journal.insert({
      clientTransactionId: id,
      kind: 'sale',
      method: 'card',
      amount,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime,
      entryMode: 'ContactlessChip',
      maskedPan: '476173******0010',
      scheme: 'visa',
    });
    offline.hook.check({
      sale: journal.require(id),
      entryMode: 'ContactlessChip',
      maskedPan: '476173******0010',
      scheme: 'visa',
      offlineApproved: true,
    });
    journal.transaction(() => {
      const row = journal.update(id, { state: 'offline_stored', offline: true });
      offline.hook.store({ row, body: body(id, amount, clientDateTime) });
    });
    say(`APPROVED ${id} ${amount}`);
    await new Promise((r) => setTimeout(r, opts.pauseMs));
  }
  say('SALES_DONE');
  // Keep uploading until killed or drained by a later run.
  await new Promise(() => {});
}

main().catch((err: unknown) => {
  process.stderr.write(`offline-burst failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
