import { describe, expect, it } from 'vitest';
import { benchColdStart } from '../../scripts/bench/cold-start.bench.js';
import { benchDurableEnqueue } from '../../scripts/bench/durable-enqueue.bench.js';
import { benchOnlineSale } from '../../scripts/bench/online-sale.bench.js';
import { benchQueueDrain } from '../../scripts/bench/queue-drain.bench.js';
import { benchRelay } from '../../scripts/bench/relay.bench.js';
import { formatResult } from '../../scripts/bench/lib/report.js';
import { benchRssFlat } from '../../scripts/bench/rss-flat.bench.js';
import { benchScale } from '../../scripts/bench/scale.bench.js';
import type { BenchResult } from '../../scripts/bench/lib/types.js';
import { testCerts } from '../helpers/certs.js';

/**
 * Each bench runs end to end with tiny counts and returns figures. Nothing here is timed:
 * the figures are checked for being numbers, never against the targets (benchmarks are
 * scripts, docs/performance.md, "Quality targets").
 */
function expectFigures(result: BenchResult, name: string): void {
  expect(result.name).toBe(name);
  expect(result.rows.length).toBeGreaterThan(0);
  for (const row of result.rows) {
    expect(typeof row.value, row.measure).toBe('number');
    // A row judged against a target must have a real figure to judge.
    if (row.target !== undefined) {
      expect(Number.isFinite(row.value), row.measure).toBe(true);
      expect(typeof row.met, row.measure).toBe('boolean');
    }
  }
  const table = formatResult(result);
  expect(table).toContain(name);
  for (const row of result.rows) expect(table).toContain(row.measure);
}

describe('quality-target benches run with tiny counts', () => {
  const certsDir = testCerts().dir;

  it('durable-enqueue returns the enqueue and bare insert rates', async () => {
    const result = await benchDurableEnqueue({ count: 20, block: 10, backlog: 5, history: 20 });
    expectFigures(result, 'durable-enqueue');
    expect(result.rows[0]?.value).toBeGreaterThan(0);
    // The split reached the agent's objects: the enqueue's checks, insert and after-commit work were timed.
    expect(result.rows.find((r) => r.measure.startsWith('enqueue: limit checks'))?.value).toBeGreaterThan(0);
    expect(result.notes[0]).toMatch(/the log line [0-9]+, events [0-9]+/);
  });

  it('queue-drain returns the upload and bare request rates at each concurrency', async () => {
    const result = await benchQueueDrain({ certsDir, count: 4, block: 2, concurrencies: [1, 2], platform: 'embedded' });
    expectFigures(result, 'queue-drain');
    expect(result.rows.filter((r) => r.target !== undefined)).toHaveLength(2);
    // The split reached the uploader's helpers at each concurrency.
    for (const row of result.rows.filter((r) => r.measure.startsWith("agent's own synchronous work")))
      expect(row.value, row.measure).toBeGreaterThan(0);
    expect(result.notes[0]).toMatch(
      /result writes [0-9]+ µs, commits [0-9]+, marks [0-9]+, log line and events [0-9]+/,
    );
  }, 60_000);

  it('online-sale returns the sale, card-in-hand and floor percentiles', async () => {
    const result = await benchOnlineSale({ certsDir, count: 3, warmup: 1, block: 2 });
    expectFigures(result, 'online-sale');
    expect(result.rows.find((r) => r.measure.startsWith('floor p50'))?.value).toBeGreaterThan(0);
    // The split reached the journal the sales wrote.
    expect(result.rows.find((r) => r.measure.startsWith("per sale: the journal's writes"))?.value).toBeGreaterThan(0);
  }, 60_000);

  it('scale returns the sale and offline store figures on an empty and a filled journal, and the query plans', async () => {
    const result = await benchScale({ certsDir, count: 3, rows: 200, queued: 5, block: 2 });
    expectFigures(result, 'scale');
    expect(result.rows.filter((r) => r.target !== undefined)).toHaveLength(2);
    expect(result.notes[0]).toContain('row by server id: index');
  }, 60_000);

  it('relay returns the SSE latency of a paid wallet sale and the status call rate', async () => {
    const result = await benchRelay({ certsDir, count: 1, payAfterMinMs: 600, payAfterMaxMs: 700 });
    expectFigures(result, 'relay');
  }, 60_000);

  it('rss-flat returns the RSS before and after a few sales', async () => {
    const result = await benchRssFlat({ certsDir, count: 3, warmup: 1, platform: 'embedded' });
    expectFigures(result, 'rss-flat');
  }, 60_000);

  // Spawns the compiled CLI (`npm test` builds it first).
  it('cold-start returns the time to ready and the idle RSS of a spawned agent', async () => {
    const result = await benchColdStart({ certsDir, count: 1, idleMs: 200 });
    expectFigures(result, 'cold-start');
  }, 90_000);
});
