import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { configSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/core/index.js';
import { EventBus } from '../../src/events/bus.js';
import { devCertPaths } from '../../src/identity/index.js';
import { createOffline, type Offline } from '../../src/offline/index.js';
import {
  Journal,
  JournalWriter,
  offlineSaleReports,
  PaymentService,
  type JournalRow,
} from '../../src/payments/index.js';
import { startDemoPlatform } from '../../src/sim/platform/server.js';
import { createDemoClient, type DemoClient } from '../lib/demo-client.js';
import { instantPeripherals } from '../lib/instant-peripherals.js';
import { repoRoot } from '../lib/repo.js';
import { opt, type BenchDefinition } from './lib/bench-definition.js';
import { benchLogger } from './lib/bench-logger.js';
import { benchCerts, tempDir } from './lib/certs.js';
import { cardProcessBody } from './lib/floor.js';
import { nowMs, percentile } from './lib/stats.js';
import type { BenchResult, BenchRow, CommonBenchOptions } from './lib/types.js';

export interface ScaleOptions extends CommonBenchOptions {
  /** Sales and enqueues timed on each journal. */
  count?: number;
  /** Final rows in the large journal (sales of earlier days), default 100,000. */
  rows?: number;
  /** Offline sales waiting in the large journal's queue, default 500. */
  queued?: number;
  /** Samples of one kind on one journal in a row before switching. */
  block?: number;
}

const DAY_MS = 86_400_000;

interface Side {
  name: 'empty' | 'large';
  journal: Journal;
  offline: Offline;
  service: PaymentService;
  sales: number[];
  enqueues: number[];
}

/** Untimed: `rows` final sales spread over the last year and `queued` offline sales waiting, in one transaction. */
function fill(dir: string, rows: number, queued: number, log: ReturnType<typeof silentLogger>): void {
  let at = Date.now() - 365 * DAY_MS;
  const step = (365 * DAY_MS) / Math.max(1, rows + queued);
  const journal = new Journal({ dataDir: dir, clock: { wall: () => at } });
  const config = configSchema.parse({ offline: { maxCount: 1_000_000, maxTotal: { EUR: 1e12 } } });
  const bus = new EventBus();
  const offline = createOffline({
    db: journal.db,
    reports: offlineSaleReports(new JournalWriter(journal, bus), log),
    platform: { process: never, status: never, isAvailable: async () => false },
    bus,
    log,
    config: config.offline,
  });
  try {
    journal.transaction(() => {
      for (let i = 0; i < rows + queued; i++) {
        at += step;
        const id = randomUUID();
        const body = cardProcessBody(id, 1000 + (i % 5000));
        const stored = i >= rows;
        const row = journal.insert({
          clientTransactionId: id,
          kind: 'sale',
          amount: body.authorizationAmount.amount,
          currency: 'EUR',
          method: 'card',
          state: stored ? 'offline_stored' : i % 20 === 0 ? 'declined' : 'approved',
          clientDateTime: body.clientDateTime,
          entryMode: 'ContactlessChip',
          maskedPan: '476173******0010',
          scheme: 'visa',
          offline: stored,
          ...(stored ? {} : { serverTransactionId: `srv-${i}`, approvalCode: '123456' }),
        });
        if (stored) offline.hook.store({ row, body });
      }
    });
  } finally {
    journal.close();
  }
}

function never(): Promise<never> {
  return Promise.reject(new Error('not in this bench'));
}

async function oneSale(side: Side): Promise<void> {
  const t0 = nowMs();
  const started = await side.service.startSale({ method: 'card', amount: 1234, currency: 'EUR' });
  const view = await started.done;
  side.sales.push(nowMs() - t0);
  if (view.state !== 'approved')
    throw new Error(`sale on the ${side.name} journal ended ${view.state}: ${view.message ?? ''}`);
}

/** The engine's offline store of a sale whose row is in flight: journal update + enqueue in one transaction (as durable-enqueue's `store`). */
function oneEnqueue(side: Side): void {
  const id = randomUUID();
  const body = cardProcessBody(id, 1000);
  side.journal.insert({
    clientTransactionId: id,
    kind: 'sale',
    amount: 1000,
    currency: 'EUR',
    method: 'card',
    state: 'in_flight',
    clientDateTime: body.clientDateTime,
    entryMode: 'ContactlessChip',
    maskedPan: '476173******0010',
    scheme: 'visa',
  });
  const t0 = nowMs();
  side.journal.transaction(() => {
    const row: JournalRow = side.journal.update(id, {
      state: 'offline_stored',
      offline: true,
      message: 'approved offline',
    });
    side.offline.hook.store({ row, body });
  });
  side.enqueues.push(nowMs() - t0);
}

/** The query plans of the reads a sale, an enqueue and the counter page make, on the large journal: any full scan is named. */
function scans(journal: Journal): string[] {
  const since = new Date(Date.now() - DAY_MS).toISOString();
  const queries: Array<[string, string, unknown[]]> = [
    [
      "today's list",
      'SELECT * FROM transactions WHERE created_at >= ? AND created_at < ? ORDER BY created_at DESC, rowid DESC LIMIT 100',
      [since, new Date().toISOString()],
    ],
    ['row by client id', 'SELECT * FROM transactions WHERE client_id = ?', ['x']],
    [
      'row by server id',
      'SELECT * FROM transactions WHERE server_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
      ['x'],
    ],
    [
      'rows in states (recovery)',
      "SELECT * FROM transactions WHERE state IN ('in_flight', 'reversing') ORDER BY created_at DESC, rowid DESC",
      [],
    ],
    [
      'queue levels',
      "SELECT currency, SUM(n) AS n, SUM(total) AS total FROM offline_counts WHERE state IN ('queued', 'uploading') AND n > 0 GROUP BY currency",
      [],
    ],
    ['related operations', 'SELECT * FROM transactions WHERE related_client_id = ? ORDER BY created_at, rowid', ['x']],
    [
      'queued ages',
      "SELECT client_id, stored_at, state FROM offline_queue WHERE state IN ('queued', 'uploading') AND stored_at <= ? ORDER BY stored_at, rowid",
      [Date.now()],
    ],
  ];
  const out: string[] = [];
  for (const [label, sql, params] of queries) {
    const plan = journal.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
    const scan = plan.filter((p) => /^SCAN /.test(p.detail) && !/USING (COVERING )?INDEX/.test(p.detail));
    out.push(`${label}: ${scan.length === 0 ? 'index' : scan.map((p) => p.detail).join(', ')}`);
  }
  return out;
}

/**
 * Scale of the work (docs/performance.md, "Quality targets"): a card sale from card in hand (the
 * engine with instant peripherals, process call to the embedded demo platform) and the
 * engine's durable offline store, each on an empty journal and on one holding `rows` final
 * sales and `queued` offline sales waiting, alternating in blocks so both see the same
 * machine load. The queue's uploader is not started: the waiting sales stay waiting.
 */
export async function benchScale(opts: ScaleOptions = {}): Promise<BenchResult> {
  const count = opts.count ?? 300;
  const rows = opts.rows ?? 100_000;
  const queued = opts.queued ?? 500;
  const block = Math.max(1, opts.block ?? 25);
  const repoDir = opts.repoDir ?? repoRoot();
  const certs = benchCerts(opts.certsDir);
  const tmp = tempDir('terminal-agent-bench-scale-');
  const { log, close } = benchLogger();
  const sides: Side[] = [];
  let client: DemoClient | undefined;
  let platform: Awaited<ReturnType<typeof startDemoPlatform>> | undefined;
  let plans: string[];
  let fillMs: number;
  try {
    // Filled first: the fill blocks the event loop for seconds, which would let the platform's keep-alive sockets expire under the client.
    const f0 = nowMs();
    fill(join(tmp.dir, 'large'), rows, queued, silentLogger());
    fillMs = nowMs() - f0;
    const paths = devCertPaths(certs.paths.dir);
    platform = await startDemoPlatform({
      apiPort: 0,
      mtlsPort: 0,
      tls: { certFile: paths.serverCert, keyFile: paths.serverKey, caFile: paths.caCert },
      seed: join(repoDir, 'config', 'demo-seed.json'),
      log: silentLogger(),
    });
    client = await createDemoClient({
      apiUrl: platform.urls.api,
      mtlsUrl: platform.urls.mtls,
      certFile: paths.deviceCert,
      keyFile: paths.deviceKey,
      caFile: paths.caCert,
      log,
    });
    const config = configSchema.parse({ offline: { maxCount: 1_000_000, maxTotal: { EUR: 1e12 } } });
    for (const name of ['empty', 'large'] as const) {
      const journal = new Journal({ dataDir: join(tmp.dir, name) });
      const bus = new EventBus();
      const offline = createOffline({
        db: journal.db,
        reports: offlineSaleReports(new JournalWriter(journal, bus), log),
        platform: client.platform,
        bus,
        log,
        config: config.offline,
      });
      const service = new PaymentService({
        journal,
        platform: client.platform,
        peripherals: instantPeripherals(),
        bus,
        log,
        config,
        offline: offline.hook,
      });
      sides.push({ name, journal, offline, service, sales: [], enqueues: [] });
    }
    const large = sides[1] as Side;
    plans = scans(large.journal);
    // Warm-up, untimed.
    for (const side of sides) {
      for (let i = 0; i < Math.min(20, count); i++) await oneSale(side);
      for (let i = 0; i < Math.min(20, count); i++) oneEnqueue(side);
      side.sales.length = 0;
      side.enqueues.length = 0;
    }
    for (let done = 0, round = 0; done < count; round++) {
      const n = Math.min(block, count - done);
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) for (let i = 0; i < n; i++) await oneSale(side);
      for (const side of order) for (let i = 0; i < n; i++) oneEnqueue(side);
      done += n;
    }
  } finally {
    for (const s of sides) {
      await s.service.stop();
      await s.offline.uploader.stop();
      s.journal.close();
    }
    await client?.close();
    await platform?.stop();
    close();
    tmp.cleanup();
    certs.cleanup();
  }
  const [empty, large] = sides as [Side, Side];
  const p50 = (xs: number[]): number => percentile(xs, 50);
  const saleRatio = p50(large.sales) / p50(empty.sales);
  const enqueueRatio = p50(large.enqueues) / p50(empty.enqueues);
  const rowsOut: BenchRow[] = [
    { measure: 'sale from card in hand p50, empty journal', value: p50(empty.sales), unit: 'ms' },
    { measure: `sale from card in hand p50, ${rows} rows + ${queued} queued`, value: p50(large.sales), unit: 'ms' },
    {
      measure: 'sale p50, large vs empty',
      value: (saleRatio - 1) * 100,
      unit: '% slower',
      target: '<= 10 % slower',
      met: saleRatio <= 1.1,
    },
    { measure: 'offline store (journal update + enqueue) p50, empty journal', value: p50(empty.enqueues), unit: 'ms' },
    { measure: `offline store p50, ${rows} rows + ${queued} queued`, value: p50(large.enqueues), unit: 'ms' },
    {
      measure: 'offline store p50, large vs empty',
      value: (enqueueRatio - 1) * 100,
      unit: '% slower',
      target: '<= 10 % slower',
      met: enqueueRatio <= 1.1,
    },
  ];
  return {
    name: 'scale',
    params: { count, rows, queued, block },
    rows: rowsOut,
    notes: [
      `query plans on the large journal (a full scan is named): ${plans.join('; ')}`,
      `the large journal: ${rows} final sales over the last year and ${queued} offline sales waiting (uploader not started), filled untimed in ${(fillMs / 1000).toFixed(1)} s`,
      "the sale runs with the configuration's defaults (immediate capture: a capture call and its journal row after each approval, so its absolute time is not the online-sale bench's); each sale and store is its own durable commits; both journals see the same blocks in alternating order",
    ],
  };
}

/** Found by scripts/bench/run.ts. */
export const bench: BenchDefinition = {
  order: 4,
  quickCount: 100,
  run: (o) => benchScale({ certsDir: o.certsDir, ...opt('count', o.count) }),
};
