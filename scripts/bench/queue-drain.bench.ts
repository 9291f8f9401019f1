import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { configSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/core/index.js';
import { EventBus } from '../../src/events/bus.js';
import { createMtlsDispatcher, devCertPaths, loadIdentity } from '../../src/identity/index.js';
import { createOffline, type Offline } from '../../src/offline/index.js';
import { MarkAhead } from '../../src/offline/mark-ahead.js';
import { OutcomeRecorder } from '../../src/offline/outcomes.js';
import { ResultCommits } from '../../src/offline/result-commits.js';
import { Journal, JournalWriter, offlineSaleReports } from '../../src/payments/index.js';
import { startDemoPlatform } from '../../src/sim/platform/server.js';
import { createDemoClient, type DemoClient } from '../lib/demo-client.js';
import { repoRoot } from '../lib/repo.js';
import { benchLogger } from './lib/bench-logger.js';
import { benchCerts, tempDir } from './lib/certs.js';
import { startChildPlatform } from './lib/child-platform.js';
import { cardProcessBody, openDurableDb } from './lib/floor.js';
import { nowMs } from './lib/stats.js';
import { TimeSplit } from './lib/time-split.js';
import type { BenchResult, BenchRow, CommonBenchOptions } from './lib/types.js';
import { opt, type BenchDefinition } from './lib/bench-definition.js';

export interface QueueDrainOptions extends CommonBenchOptions {
  /** Sales uploaded per concurrency, timed (and as many bare requests). */
  count?: number;
  /** Sales per round: a round stores them, then the uploader drains them; bare requests in blocks of the same size. */
  block?: number;
  /** Upload concurrencies measured (offline.uploadConcurrency). */
  concurrencies?: number[];
  /** The demo platform in its own process (default) or in this one. */
  platform?: 'child' | 'embedded';
}

const AMOUNT = 1000;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Endpoints {
  api: string;
  mtls: string;
  stop(): Promise<void>;
}

async function platformEndpoints(mode: 'child' | 'embedded', repoDir: string, certsDir: string): Promise<Endpoints> {
  if (mode === 'child') {
    const child = await startChildPlatform(repoDir, certsDir);
    return { api: child.endpoints.baseUrl, mtls: child.endpoints.deviceAuthUrl, stop: child.stop };
  }
  const certs = devCertPaths(certsDir);
  const p = await startDemoPlatform({
    apiPort: 0,
    mtlsPort: 0,
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: join(repoDir, 'config', 'demo-seed.json'),
    log: silentLogger(),
  });
  return { api: p.urls.api, mtls: p.urls.mtls, stop: () => p.stop() };
}

/** The agent's offline component at one upload concurrency, on its own journal file. */
interface Drainer {
  concurrency: number;
  journal: Journal;
  offline: Offline;
  /** Milliseconds the journal spent in its card-data scrub (wal_checkpoint(TRUNCATE)), and how many. */
  scrub: { ms: number; count: number };
  /** Pages the drain rounds appended to the write-ahead log, over the uploads of the rounds counted. */
  pages: { at: WalPosition | undefined; pages: number; uploads: number };
}

/** Where the write-ahead log ends: its salt (new after each reset) and its last valid frame. */
interface WalPosition {
  salt: string;
  frames: number;
}

/**
 * Reads the wal-index header in the journal's -shm file (https://sqlite.org/walformat.html,
 * "The WAL-Index Header"): mxFrame at byte 16, the salts at 32. 48 bytes, so cheap enough
 * to read inside a timed round; undefined before the log exists.
 */
function walPosition(journalFile: string): WalPosition | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(`${journalFile}-shm`, 'r');
    const header = Buffer.alloc(48);
    if (readSync(fd, header, 0, 48, 0) < 48) return undefined;
    return { salt: header.subarray(32, 40).toString('hex'), frames: header.readUInt32LE(16) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Times the journal's scrub from the harness (the method wrapped on this instance, nothing
 * in the agent): the checkpoint that cuts the write-ahead log after card data was cleared
 * (docs/journal.md, "Journal", card data at rest), which each upload's result triggers.
 */
function timeScrubs(journal: Journal, pages?: Drainer['pages']): { ms: number; count: number } {
  const spent = { ms: 0, count: 0 };
  const scrub = journal.scrub;
  journal.scrub = function timed(this: Journal): boolean {
    // What the round wrote, read before the scrub cuts the log (a round whose log was reset
    // by an automatic checkpoint meanwhile is not counted).
    if (pages?.at !== undefined) {
      const end = walPosition(this.file);
      if (end !== undefined && end.salt === pages.at.salt) {
        pages.pages += end.frames - pages.at.frames;
        pages.uploads += pagesRoundUploads;
      }
      pages.at = undefined;
    }
    const t0 = nowMs();
    try {
      return scrub.call(this);
    } finally {
      spent.ms += nowMs() - t0;
      spent.count += 1;
    }
  };
  return spent;
}

/** Uploads of the round being drained (read by the scrub wrapper). */
let pagesRoundUploads = 0;

/** Untimed: `n` offline sales stored as the engine stores them (journal row, then update + enqueue in one transaction). */
async function storeSales(d: Drainer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const body = cardProcessBody(id, AMOUNT);
    d.journal.insert({
      clientTransactionId: id,
      kind: 'sale',
      amount: AMOUNT,
      currency: 'EUR',
      method: 'card',
      state: 'in_flight',
      clientDateTime: body.clientDateTime,
      entryMode: 'ContactlessChip',
      maskedPan: '476173******0010',
      scheme: 'visa',
    });
    d.journal.transaction(() => {
      const row = d.journal.update(id, { state: 'offline_stored', offline: true });
      d.offline.hook.store({ row, body });
    });
  }
  // The after-store work runs before the drain is timed.
  await turn();
  await turn();
}

/** Timed: one forced upload round (`uploader.flush()`: isAvailable, then every queued sale). */
async function drain(d: Drainer, n: number): Promise<number> {
  d.pages.at = walPosition(d.journal.file);
  pagesRoundUploads = n;
  const t0 = nowMs();
  const report = await d.offline.uploader.flush();
  const t1 = nowMs();
  if (report.uploaded !== n || report.remaining !== 0) {
    throw new Error(
      `upload round at concurrency ${d.concurrency}: ${report.uploaded} of ${n} uploaded, ${report.remaining} remaining (${report.items.find((i) => i.result !== 'uploaded')?.message ?? 'no message'})`,
    );
  }
  return t1 - t0;
}

/** The same process request the uploader sends, bare: undici, the same mTLS dispatcher settings, the same token. */
class BareRequests {
  private readonly url: string;

  constructor(
    api: string,
    private readonly dispatcher: Dispatcher,
    private readonly token: () => Promise<string>,
  ) {
    this.url = `${api.replace(/\/+$/, '')}/payment/v1/transactions/process`;
  }

  /** Timed: `n` requests, `concurrency` in flight at a time. */
  async run(n: number, concurrency: number): Promise<number> {
    const token = await this.token();
    const bodies = Array.from({ length: n }, () =>
      JSON.stringify({ ...cardProcessBody(randomUUID(), AMOUNT), offlineTransaction: true }),
    );
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < n) {
        const body = bodies[next++] as string;
        const res = await request(this.url, {
          dispatcher: this.dispatcher,
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
          body,
        });
        await res.body.text();
        if (res.statusCode !== 200 && res.statusCode !== 201)
          throw new Error(`bare process request answered ${res.statusCode}`);
      }
    };
    const t0 = nowMs();
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
    return nowMs() - t0;
  }
}

/** Untimed context: what one durable commit (WAL, synchronous=FULL) costs on this disk now. */
function durableCommitMs(dir: string, n = 200): number {
  const db = openDurableDb(dir, 'commit-probe.sqlite');
  try {
    db.exec('CREATE TABLE IF NOT EXISTS probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL) STRICT');
    const insert = db.prepare('INSERT INTO probe (at) VALUES (?)');
    const t0 = nowMs();
    for (let i = 0; i < n; i++) insert.run(i);
    return (nowMs() - t0) / n;
  } finally {
    db.close();
  }
}

/**
 * Queue drain (docs/performance.md, "Quality targets": at least 80 % of bare pipelined HTTPS
 * requests): N stored offline sales uploaded by the uploader (`uploader.flush()`, at each
 * upload concurrency) to the demo platform over mTLS, against N bare process requests with
 * undici on the same kind of mTLS dispatcher, same token, same concurrency, same endpoint.
 * Drain rounds and bare blocks alternate so both see the same machine load.
 */
export async function benchQueueDrain(opts: QueueDrainOptions = {}): Promise<BenchResult> {
  const count = opts.count ?? 600;
  const block = Math.max(1, Math.min(opts.block ?? 100, count));
  const concurrencies = opts.concurrencies ?? [1, 4];
  const mode = opts.platform ?? 'child';
  const repoDir = opts.repoDir ?? repoRoot();
  const certs = benchCerts(opts.certsDir);
  const tmp = tempDir('terminal-agent-bench-drain-');
  const { log, close } = benchLogger();
  let platform: Endpoints | undefined;
  let client: DemoClient | undefined;
  let bareDispatcher: Dispatcher | undefined;
  const drainers: Drainer[] = [];
  const spentDrain = new Map<number, number>();
  const spentBare = new Map<number, number>();
  const scrubDrain = new Map<number, { ms: number; count: number }>();
  let commitMs: number;
  let draining = 0;
  const split = drainSplit(() => draining);
  try {
    platform = await platformEndpoints(mode, repoDir, certs.paths.dir);
    const paths = certs.paths;
    client = await createDemoClient({
      apiUrl: platform.api,
      mtlsUrl: platform.mtls,
      certFile: paths.deviceCert,
      keyFile: paths.deviceKey,
      caFile: paths.caCert,
      log,
    });
    const identity = loadIdentity({ certFile: paths.deviceCert, keyFile: paths.deviceKey, caFile: paths.caCert });
    bareDispatcher = createMtlsDispatcher(identity, {
      connectTimeoutMs: 2_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
    });
    const auth = client.auth;
    const bare = new BareRequests(platform.api, bareDispatcher, () => auth.tokenFor());
    for (const c of concurrencies) {
      const config = configSchema.parse({
        offline: { uploadConcurrency: c, maxCount: 1_000_000, maxTotal: { EUR: 1e12 } },
      });
      const journal = new Journal({ dataDir: tmp.dir, fileName: `drain-${c}.sqlite` });
      const pages: Drainer['pages'] = { at: undefined, pages: 0, uploads: 0 };
      drainers.push({
        concurrency: c,
        journal,
        pages,
        scrub: timeScrubs(journal, pages),
        offline: ((bus: EventBus) =>
          createOffline({
            db: journal.db,
            reports: offlineSaleReports(new JournalWriter(journal, bus), log),
            platform: client.platform,
            bus,
            log,
            config: config.offline,
          }))(new EventBus()),
      });
      spentDrain.set(c, 0);
      spentBare.set(c, 0);
    }
    // Warm-up, untimed: connections at each concurrency, token, JIT, SQLite pages.
    for (const d of drainers) {
      const n = Math.min(block, 20);
      await storeSales(d, n);
      await drain(d, n);
      await bare.run(n, d.concurrency);
    }
    for (let done = 0, round = 0; done < count; round++) {
      const n = Math.min(block, count - done);
      for (const d of drainers) {
        await storeSales(d, n);
        // Which goes first alternates by round.
        const order = round % 2 === 0 ? (['drain', 'bare'] as const) : (['bare', 'drain'] as const);
        for (const kind of order) {
          if (kind === 'drain') {
            const before = { ...d.scrub };
            draining = d.concurrency;
            split.active = true;
            spentDrain.set(d.concurrency, (spentDrain.get(d.concurrency) ?? 0) + (await drain(d, n)));
            // Scrubs that run after the drain's last result (next turn) belong to it too.
            await turn();
            split.active = false;
            scrubDrain.set(d.concurrency, {
              ms: (scrubDrain.get(d.concurrency)?.ms ?? 0) + d.scrub.ms - before.ms,
              count: (scrubDrain.get(d.concurrency)?.count ?? 0) + d.scrub.count - before.count,
            });
          } else spentBare.set(d.concurrency, (spentBare.get(d.concurrency) ?? 0) + (await bare.run(n, d.concurrency)));
        }
      }
      done += n;
    }
    commitMs = durableCommitMs(tmp.dir);
  } finally {
    split.restore();
    for (const d of drainers) {
      await d.offline.uploader.stop();
      d.journal.close();
    }
    await bareDispatcher?.close();
    await client?.close();
    await platform?.stop();
    close();
    tmp.cleanup();
    certs.cleanup();
  }

  const rows: BenchRow[] = [];
  const perSale: string[] = [];
  for (const c of concurrencies) {
    const drainRate = (count / (spentDrain.get(c) as number)) * 1000;
    const bareRate = (count / (spentBare.get(c) as number)) * 1000;
    const ratio = (drainRate / bareRate) * 100;
    rows.push(
      { measure: `bare process requests, concurrency ${c}`, value: bareRate, unit: '/s' },
      { measure: `queue drain (uploader.flush), concurrency ${c}`, value: drainRate, unit: '/s' },
      {
        measure: `queue drain vs bare, concurrency ${c}`,
        value: ratio,
        unit: '%',
        target: '>= 80 %',
        met: ratio >= 80,
      },
    );
    const scrub = scrubDrain.get(c) ?? { ms: Number.NaN, count: 0 };
    rows.push({
      measure: `card-data scrubs (checkpoint, log cut) per upload, concurrency ${c}`,
      value: scrub.count / count,
      unit: '',
    });
    rows.push({
      measure: `time in card-data scrubs per upload, concurrency ${c}`,
      value: scrub.ms / count,
      unit: 'ms',
    });
    const pages = drainers.find((d) => d.concurrency === c)?.pages;
    rows.push({
      measure: `write-ahead log pages per upload (its result, its share of the marks), concurrency ${c}`,
      value: pages !== undefined && pages.uploads > 0 ? pages.pages / pages.uploads : Number.NaN,
      unit: '',
    });
    const own = Object.fromEntries(DRAIN_PARTS.map((p) => [p, (split.ms(`${c} ${p}`) / count) * 1000])) as Record<
      (typeof DRAIN_PARTS)[number],
      number
    >;
    const ownTotal = DRAIN_PARTS.reduce((sum, p) => sum + own[p], 0);
    const extra = (1000 / drainRate - 1000 / bareRate) * 1000;
    rows.push({
      measure: `agent's own synchronous work per upload (result writes, commits, marks, log and events), concurrency ${c}`,
      value: ownTotal,
      unit: 'µs',
    });
    perSale.push(
      `concurrency ${c}: ${(1000 / drainRate).toFixed(2)} ms per upload vs ${(1000 / bareRate).toFixed(2)} ms per bare request (${extra.toFixed(0)} µs more; 80 % allows ${((1000 / bareRate) * 250).toFixed(0)} µs more), of which ${(scrub.ms / count).toFixed(2)} ms in the card-data scrub; ` +
        `the agent's own synchronous work per upload (the bench wraps its objects, scripts/bench/lib/time-split.ts): result writes ${own['result writes'].toFixed(0)} µs, commits ${own.commits.toFixed(0)}, marks ${own.marks.toFixed(0)}, log line and events ${own['log and events'].toFixed(0)}, ${ownTotal.toFixed(0)} in all; the rest of the difference is the platform client (token, request, the answer's check) and the uploader's loop`,
    );
  }
  return {
    name: 'queue-drain',
    params: { count, block, concurrencies: concurrencies.join(','), platform: mode },
    rows,
    notes: [
      perSale.join('; '),
      `an upload's result (queue + journal) is group-committed (src/offline/result-commits.ts) with the next "sending" mark, written for 16 queued sales at a time while a request is out (src/offline/mark-ahead.ts, topUp), at 32 results waiting, 50 ms after the first, or at the round's end: a round of 100 makes about 8 durable commits; commits run on the agent's one SQLite connection and block its event loop; one durable commit of a single row costs ${commitMs.toFixed(2)} ms on this disk now, and a commit's fsync costs more the more pages it carries`,
      "a result's pages: its queue row and journal row (neighbours of the round's other rows), the state indexes, and one leaf of the journal's server-id index, where the platform's random ids land far apart (docs/offline.md, \"Offline queue\")",
      'each upload round starts with one isAvailable request (counted in the drain), and each uploaded sale logs one info line and publishes its events',
      'the bare requests carry the same body (offlineTransaction: true, a fresh client id each) and write nothing to disk: a stricter floor than the work, since the invariants require each result on disk before anything relies on it',
    ],
  };
}

/** The agent's own synchronous work in a drain, in parts (TimeSplit). */
const DRAIN_PARTS = ['result writes', 'commits', 'marks', 'log and events'] as const;

/**
 * Wraps the uploader's helpers by their classes (each round makes its own): the result's
 * queue write, the group commit itself (its SQLite COMMIT, savepoints, the journal rows'
 * writes payments makes in it, and fsync), the "sending" marks, and the log line and events after the commit. Parts are
 * counted per concurrency, `current()` says which.
 */
function drainSplit(current: () => number): TimeSplit {
  const split = new TimeSplit();
  const part = (name: (typeof DRAIN_PARTS)[number]) => (): string => `${current()} ${name}`;
  split.wrap(OutcomeRecorder.prototype, 'writeSettled', part('result writes'));
  split.wrap(OutcomeRecorder.prototype, 'announceSettled', part('log and events'));
  split.wrap(ResultCommits.prototype, 'commit', part('commits'));
  split.wrap(MarkAhead.prototype, 'take', part('marks'));
  split.wrap(MarkAhead.prototype, 'topUp', part('marks'));
  return split;
}

/** Found by scripts/bench/run.ts. */
export const bench: BenchDefinition = {
  order: 2,
  quickCount: 200,
  run: (o) => benchQueueDrain({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('platform', o.platform) }),
};
