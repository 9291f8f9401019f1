import { EventBus } from '../../src/events/bus.js';
import { Journal, PaymentService } from '../../src/payments/index.js';
import { instantPeripherals } from '../lib/instant-peripherals.js';
import { startBenchAgent } from './lib/agent-harness.js';
import { tempDir } from './lib/certs.js';
import { SaleFloor, type FloorPhases } from './lib/floor.js';
import { cardSaleThroughApi, type CardSaleSample } from './lib/card-sale.js';
import { withinFactor } from './lib/report.js';
import { SaleProbe } from './lib/sale-probe.js';
import { SaleWatch } from './lib/sale-watch.js';
import { TimeSplit } from './lib/time-split.js';
import { nowMs, percentile } from './lib/stats.js';
import type { BenchResult, BenchRow, CommonBenchOptions } from './lib/types.js';
import { opt, type BenchDefinition } from './lib/bench-definition.js';

export interface OnlineSaleOptions extends CommonBenchOptions {
  /** Measured samples of each kind (sale, floor, card-in-hand sale). */
  count?: number;
  /** Unmeasured samples of each kind first (connections, JIT, SQLite pages). */
  warmup?: number;
  /** Samples of one kind in a row before switching kind, so all kinds see the same machine load. */
  block?: number;
}

/**
 * Untimed: lets the card-data scrub the approval scheduled run (docs/journal.md,
 * "Journal", card data at rest). It runs after `done` resolves; without this wait it ran
 * inside the next sale (during its process call), as the API sales never have it (they wait
 * for the outcome on the reader and the display first).
 */
async function scrubbed(journal: Journal): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (journal.scrubPending && Date.now() < deadline) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function oneInHandSale(service: PaymentService, journal: Journal): Promise<number> {
  const t0 = nowMs();
  const started = await service.startSale({ method: 'card', amount: 1234, currency: 'EUR' });
  const view = await started.done;
  const t1 = nowMs();
  if (view.state !== 'approved') throw new Error(`card-in-hand sale ended ${view.state}, not approved`);
  await scrubbed(journal);
  return t1 - t0;
}

function p(samples: readonly number[], q: number): number {
  return percentile(samples, q);
}

/**
 * Online card sale through the local API against the embedded demo platform, the
 * simulated reader presenting the card at once, compared with the floor measured in the
 * same run (docs/performance.md, "Quality targets"). The same sale is also timed from "card result in
 * hand" (the engine with in-process peripherals that answer at once) to show how much of
 * the time is the reader's serial protocol.
 */
export async function benchOnlineSale(opts: OnlineSaleOptions = {}): Promise<BenchResult> {
  const count = opts.count ?? 300;
  const warmup = opts.warmup ?? Math.min(30, count);
  const block = Math.max(1, opts.block ?? 20);
  const b = await startBenchAgent(opts);
  const tmp = tempDir('terminal-agent-bench-floor-');
  const watch = new SaleWatch(b.agent.bus);
  const probe = new SaleProbe(b.agent);
  // The synchronous work of the agent's own objects in the sales through the API (not the floor's, not the card-in-hand engine's).
  const split = new TimeSplit();
  split.wrap(Journal.prototype, 'insert', 'journal writes');
  split.wrap(Journal.prototype, 'update', 'journal writes');
  split.wrap(Journal.prototype, 'get', 'journal reads');
  split.wrap(Journal.prototype, 'flags', 'journal reads');
  split.wrap(EventBus.prototype, 'publish', 'events');
  split.wrap(b.agent.offline.hook, 'allowed', 'offline limit check');
  let floor: SaleFloor | undefined;
  let inHandJournal: Journal | undefined;
  let inHand: PaymentService | undefined;
  const sales: CardSaleSample[] = [];
  const floors: FloorPhases[] = [];
  const inHandTimes: number[] = [];
  try {
    floor = new SaleFloor({
      baseUrl: b.agent.endpoints.baseUrl,
      identity: b.agent.identity,
      token: () => b.agent.auth.tokenFor(),
      dir: tmp.dir,
    });
    await floor.start();
    // The engine with instant peripherals, its own journal file, the agent's platform client.
    inHandJournal = new Journal({ dataDir: tmp.dir, fileName: 'in-hand.sqlite' });
    inHand = new PaymentService({
      journal: inHandJournal,
      platform: b.agent.platformClient,
      peripherals: instantPeripherals(),
      bus: new EventBus(),
      log: b.log,
      config: b.config,
    });
    b.agent.simulated?.reader.setDefaultCard({ delayMs: 0 });
    for (let i = 0; i < warmup; i++) {
      await floor.once();
      await cardSaleThroughApi(b.agent, watch, probe);
      await oneInHandSale(inHand, inHandJournal);
    }
    while (sales.length < count) {
      const n = Math.min(block, count - sales.length);
      for (let i = 0; i < n; i++) floors.push(await floor.once());
      split.active = true;
      for (let i = 0; i < n; i++) sales.push(await cardSaleThroughApi(b.agent, watch, probe));
      split.active = false;
      for (let i = 0; i < n; i++) inHandTimes.push(await oneInHandSale(inHand, inHandJournal));
    }
  } finally {
    watch.stop();
    probe.restore();
    split.restore();
    await inHand?.stop();
    inHandJournal?.close();
    await floor?.close();
    await b.stop();
    tmp.cleanup();
  }

  const total = sales.map((s) => s.total);
  const floorTotal = floors.map((f) => f.total);
  const f50 = p(floorTotal, 50);
  const f99 = p(floorTotal, 99);
  const s50 = p(total, 50);
  const s99 = p(total, 99);
  const h50 = p(inHandTimes, 50);
  const h99 = p(inHandTimes, 99);
  const rows: BenchRow[] = [
    {
      measure:
        'floor p50 (loopback HTTP + serial exchange + mTLS request + 3 durable writes, the first into a cut log)',
      value: f50,
      unit: 'ms',
    },
    { measure: 'floor p99', value: f99, unit: 'ms' },
    {
      measure: 'sale p50 (POST /api/v1/sales -> approved)',
      value: s50,
      unit: 'ms',
      ...withinFactor(s50, f50, 1.3, 'floor p50', 'ms'),
    },
    { measure: 'sale p99', value: s99, unit: 'ms', ...withinFactor(s99, f99, 2, 'floor p99', 'ms') },
    { measure: 'sale p50 / floor p50', value: s50 / f50, unit: 'x' },
    { measure: 'sale p99 / floor p99', value: s99 / f99, unit: 'x' },
    { measure: 'sale from card in hand p50 (engine, instant reader)', value: h50, unit: 'ms' },
    { measure: 'sale from card in hand p99', value: h99, unit: 'ms' },
  ];
  const fp = (k: keyof FloorPhases): number =>
    p(
      floors.map((f) => f[k]),
      50,
    );
  const sp = (k: keyof CardSaleSample['phases']): number =>
    p(
      sales.map((s) => s.phases[k]),
      50,
    );
  // Each phase of the sale beside the floor's part it pays (machines read these from --json).
  const phases: Array<[string, number, number, string]> = [
    ['POST -> reader asked', sp('toReader'), fp('http') + fp('rowWrite'), 'local HTTP + the row write into a cut log'],
    ['reader (startPayment -> cardResult)', sp('reader'), fp('serial'), 'serial exchange'],
    ['card -> process request sent', sp('toRequest'), fp('inFlightWrite'), 'the in_flight write'],
    ['process call', sp('request'), fp('request'), 'mTLS request'],
    ['answer -> approved', sp('answer'), fp('answerWrite'), 'the answer write'],
  ];
  for (const [label, sale, , floorLabel] of phases) {
    rows.push({ measure: `phase p50: ${label} (against floor part: ${floorLabel})`, value: sale, unit: 'ms' });
  }
  rows.push(
    { measure: 'floor part p50: local HTTP', value: fp('http'), unit: 'ms' },
    { measure: 'floor part p50: serial exchange', value: fp('serial'), unit: 'ms' },
    { measure: 'floor part p50: mTLS request', value: fp('request'), unit: 'ms' },
    { measure: 'floor part p50: three durable writes', value: fp('writes'), unit: 'ms' },
    { measure: 'floor part p50: the row write, into a log the previous scrub cut', value: fp('rowWrite'), unit: 'ms' },
    { measure: 'floor part p50: the in_flight write', value: fp('inFlightWrite'), unit: 'ms' },
    { measure: 'floor part p50: the answer write', value: fp('answerWrite'), unit: 'ms' },
  );
  const perSale = (part: string): number => split.ms(part) / sales.length;
  rows.push(
    {
      measure: "per sale: the journal's writes with their commits (the floor's three writes: floor part above)",
      value: perSale('journal writes'),
      unit: 'ms',
    },
    {
      measure: "per sale: the journal's reads (whole rows, state checks)",
      value: perSale('journal reads'),
      unit: 'ms',
    },
    { measure: 'per sale: events on the bus', value: perSale('events'), unit: 'ms' },
    {
      measure: 'per sale: the offline limit check the reader is told about',
      value: perSale('offline limit check'),
      unit: 'ms',
    },
  );
  const phase = ([label, sale, floorPart, floorLabel]: [string, number, number, string]): string =>
    `${label} ${sale.toFixed(2)} ms vs ${floorLabel} ${floorPart.toFixed(2)} ms (+${(sale - floorPart).toFixed(2)})`;
  const notes = [
    `sale by phase (p50) against the floor's parts: ${phases.map(phase).join('; ')}`,
    `202 answered at ${p(
      sales.map((s) => s.post),
      50,
    ).toFixed(2)} ms after the POST (p50); the sale goes on while the page has its answer`,
    'phases are timestamps the bench harness takes around the reader and the platform client the engine calls (scripts/bench/lib/sale-probe.ts), nothing the agent logs; a p50 per phase, so they need not add up to the p50 of the whole',
    'the demo reader also sends a cardPresented event (one more frame and ACK) the floor does not exchange; the sale ends when the journal row is approved (the bus event the page is sent); showing the outcome on the reader and display comes after and is not counted',
    "per sale: synchronous time inside the agent's own objects, wrapped by the bench (scripts/bench/lib/time-split.ts; a mean, where the phases are p50s): the journal's inserts and updates with their durable commits, its reads, the bus, the offline limit check",
    'the card-in-hand sale runs to `done` (three journal writes: created, in_flight, approved; plus the process call)',
    'phases overlap on the one event loop: the serial exchange and the in_flight write run before the loop next reads a socket, so the 202 reaches this client while the process request is out and its handling counts in the process call, where the floor counts it in its HTTP part; the reader phase likewise carries the end of the local API request',
  ];
  return { name: 'online-sale', params: { count, warmup, block }, rows, notes };
}

/** Found by scripts/bench/run.ts. */
export const bench: BenchDefinition = {
  order: 3,
  quickCount: 100,
  run: (o) => benchOnlineSale({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('warmup', o.warmup) }),
};
