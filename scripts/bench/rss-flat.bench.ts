import Database from 'better-sqlite3';
import { readFileSync, statSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { join } from 'node:path';
import { JOURNAL_FILE } from '../../src/payments/index.js';
import { repoRoot } from '../lib/repo.js';
import { startBenchAgent } from './lib/agent-harness.js';
import { benchCerts } from './lib/certs.js';
import { cardSaleThroughApi } from './lib/card-sale.js';
import { startChildPlatform, type ChildPlatform } from './lib/child-platform.js';
import { forceGc } from './lib/gc.js';
import { SaleWatch } from './lib/sale-watch.js';
import { SseClient } from './lib/sse-client.js';
import { mb, nowMs } from './lib/stats.js';
import type { BenchResult, CommonBenchOptions } from './lib/types.js';
import { opt, type BenchDefinition } from './lib/bench-definition.js';

export interface RssFlatOptions extends CommonBenchOptions {
  /** Card sales between the two RSS readings. */
  count?: number;
  /** Sales before the first reading (caches, JIT, SQLite pages, connection pools). */
  warmup?: number;
  /**
   * child: the demo platform in its own process, so this process is the agent alone (default);
   * embedded: in this process as `npm start` runs it, its ledger growing with every sale.
   */
  platform?: 'child' | 'embedded';
}

interface Reading {
  sales: number;
  rss: number;
  heap: number;
  /** V8 heap committed (what of the heap counts in RSS). */
  heapTotal: number;
  /** Memory outside the heap that V8 is told about (Buffers, what native modules report). */
  external: number;
  /** Resident pages mapped from files (node's own code and data, shared libraries): /proc/self/status RssFile. */
  rssFile: number;
  /** Resident anonymous memory (heap, malloc, page caches): RssAnon. */
  rssAnon: number;
  /** V8's resident memory by space (physical_space_size): where the heap's growth is. */
  spaces: Record<HeapPart, number>;
}

type HeapPart = 'new' | 'old' | 'code' | 'trusted' | 'large';

/** The V8 heap's resident bytes by part: JS objects young and old, compiled code, bytecode and other trusted objects, large objects. */
function heapParts(): Record<HeapPart, number> {
  const parts: Record<HeapPart, number> = { new: 0, old: 0, code: 0, trusted: 0, large: 0 };
  for (const space of getHeapSpaceStatistics()) {
    const n = space.space_name;
    const part: HeapPart =
      n === 'new_space'
        ? 'new'
        : n.startsWith('code')
          ? 'code'
          : n.startsWith('trusted')
            ? 'trusted'
            : n.includes('large')
              ? 'large'
              : 'old';
    parts[part] += space.physical_space_size;
  }
  return parts;
}

function procStatus(field: 'RssFile' | 'RssAnon'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

/** cache_size of a new connection: what the journal gets unless it sets its own (better-sqlite3 builds SQLite with -16000). */
function defaultCacheKiB(): number {
  const db = new Database(':memory:');
  try {
    const size = db.pragma('cache_size', { simple: true }) as number;
    // Negative: KiB; positive: pages (4 KiB each by default).
    return size < 0 ? -size : size * 4;
  } finally {
    db.close();
  }
}

async function reading(sales: number): Promise<Reading> {
  await forceGc();
  const m = process.memoryUsage();
  return {
    sales,
    rss: m.rss,
    heap: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    rssFile: procStatus('RssFile'),
    rssAnon: procStatus('RssAnon'),
    spaces: heapParts(),
  };
}

/**
 * RSS flat over many sales (docs/performance.md, "Quality targets"): the whole agent in this process,
 * card sales through the local API with the simulated reader presenting the card at once
 * and a counter-page SSE client connected; RSS after a forced GC before and after.
 */
export async function benchRssFlat(opts: RssFlatOptions = {}): Promise<BenchResult> {
  const count = opts.count ?? 10_000;
  const warmup = opts.warmup ?? Math.min(200, count);
  const mode = opts.platform ?? 'child';
  const repoDir = opts.repoDir ?? repoRoot();
  const certs = benchCerts(opts.certsDir);
  let child: ChildPlatform | undefined;
  const readings: Reading[] = [];
  let idle: Reading | undefined;
  let elapsed: number;
  let cpuMs: number;
  let readingsCpuMs = 0;
  let journalBytes: number;
  try {
    if (mode === 'child') child = await startChildPlatform(repoDir, certs.paths.dir);
    const b = await startBenchAgent({
      repoDir,
      certsDir: certs.paths.dir,
      ...(child !== undefined ? { platform: child.endpoints } : {}),
    });
    const watch = new SaleWatch(b.agent.bus);
    let sse: SseClient | undefined;
    try {
      sse = await SseClient.connect(b.agent.url, b.agent.localToken, { keep: false });
      b.agent.simulated?.reader.setDefaultCard({ delayMs: 0 });
      idle = await reading(-warmup);
      for (let i = 0; i < warmup; i++) await cardSaleThroughApi(b.agent, watch);
      readings.push(await reading(0));
      const every = Math.max(1, Math.ceil(count / 10));
      const t0 = nowMs();
      const cpu0 = process.cpuUsage();
      for (let i = 1; i <= count; i++) {
        await cardSaleThroughApi(b.agent, watch);
        if (i % every === 0 && i < count) {
          const before = process.cpuUsage();
          readings.push(await reading(i));
          const spent = process.cpuUsage(before);
          readingsCpuMs += (spent.user + spent.system) / 1000;
        }
      }
      elapsed = nowMs() - t0;
      const cpu = process.cpuUsage(cpu0);
      cpuMs = (cpu.user + cpu.system) / 1000 - readingsCpuMs;
      readings.push(await reading(count));
      journalBytes = statSync(join(b.config.dataDir, JOURNAL_FILE)).size;
    } finally {
      await sse?.close();
      watch.stop();
      await b.stop();
    }
  } finally {
    await child?.stop();
    certs.cleanup();
  }

  const first = readings[0] as Reading;
  const last = readings[readings.length - 1] as Reading;
  const growth = mb(last.rss - first.rss);
  const start = idle ?? first;
  return {
    name: 'rss-flat',
    params: { count, warmup, platform: mode },
    rows: [
      { measure: `RSS after ${warmup} warm-up sales (after GC)`, value: mb(first.rss), unit: 'MiB' },
      { measure: `RSS after ${count} more sales (after GC)`, value: mb(last.rss), unit: 'MiB' },
      { measure: 'RSS growth after warm-up', value: growth, unit: 'MiB', target: '<= +2 MiB', met: growth <= 2 },
      { measure: 'RSS before the first sale (after GC)', value: mb(start.rss), unit: 'MiB' },
      { measure: 'warm-up growth: RSS', value: mb(first.rss - start.rss), unit: 'MiB' },
      { measure: 'warm-up growth: JS heap used', value: mb(first.heap - start.heap), unit: 'MiB' },
      { measure: 'warm-up growth: JS heap committed', value: mb(first.heapTotal - start.heapTotal), unit: 'MiB' },
      {
        measure: 'warm-up growth: native (RSS minus V8 heap committed)',
        value: mb(first.rss - first.heapTotal - (start.rss - start.heapTotal)),
        unit: 'MiB',
      },
      {
        measure: 'warm-up growth: pages mapped from files (node and library code first run)',
        value: mb(first.rssFile - start.rssFile),
        unit: 'MiB',
      },
      {
        measure: 'warm-up growth: anonymous memory (heap, malloc, caches)',
        value: mb(first.rssAnon - start.rssAnon),
        unit: 'MiB',
      },
      {
        measure: 'growth after warm-up: pages mapped from files',
        value: mb(last.rssFile - first.rssFile),
        unit: 'MiB',
      },
      { measure: 'growth after warm-up: anonymous memory', value: mb(last.rssAnon - first.rssAnon), unit: 'MiB' },
      { measure: 'JS heap used growth', value: mb(last.heap - first.heap), unit: 'MiB' },
      { measure: 'JS heap committed growth', value: mb(last.heapTotal - first.heapTotal), unit: 'MiB' },
      ...(['new', 'old', 'code', 'trusted', 'large'] as const).map((part) => ({
        measure: `  V8 ${part === 'new' ? 'new space' : part === 'old' ? 'old space (JS objects)' : part === 'code' ? 'code space (compiled machine code)' : part === 'trusted' ? 'trusted space (bytecode, compiler metadata)' : 'large objects'} resident growth (warm-up ${mb(first.spaces[part] - start.spaces[part]).toFixed(2)} MiB)`,
        value: mb(last.spaces[part] - first.spaces[part]),
        unit: 'MiB',
      })),
      { measure: 'external (Buffers, native objects) growth', value: mb(last.external - first.external), unit: 'MiB' },
      {
        measure: 'native growth (RSS minus V8 heap committed)',
        value: mb(last.rss - last.heapTotal - (first.rss - first.heapTotal)),
        unit: 'MiB',
      },
      { measure: 'sales per second (sequential, through the local API)', value: (count / elapsed) * 1000, unit: '/s' },
      // CPU time moves much less than wall time on a shared machine: what a flag's speed cost is read from.
      {
        measure: 'CPU time of this process per sale (user + system, readings excluded)',
        value: cpuMs / count,
        unit: 'ms',
      },
    ],
    notes: [
      `RSS along the run (sales: MiB): ${readings.map((r) => `${r.sales}: ${mb(r.rss).toFixed(1)}`).join(', ')}`,
      mode === 'child'
        ? 'the demo platform ran in its own process: the figures are the agent alone (its journal grows on disk, not in memory)'
        : 'the embedded demo platform keeps every transaction in memory: its ledger is part of the growth',
      `the journal file is ${mb(journalBytes).toFixed(1)} MiB after the run; SQLite's page cache (native, in RSS, not in the heap) grows with it up to cache_size, ${(defaultCacheKiB() / 1024).toFixed(1)} MiB per connection by default`,
      "the simulated reader's and display's logs of received messages (test aids, unbounded) are emptied before each sale",
    ],
  };
}

/** Found by scripts/bench/run.ts. */
export const bench: BenchDefinition = {
  order: 6,
  quickCount: 1_000,
  run: (o) =>
    benchRssFlat({
      certsDir: o.certsDir,
      ...opt('count', o.count),
      ...opt('warmup', o.warmup),
      ...opt('platform', o.platform),
    }),
};
