import { startBenchAgent } from './lib/agent-harness.js';
import { postSale } from './lib/local-api.js';
import { SETTLED_STATES } from './lib/sale-watch.js';
import { SseClient, type SseEvent } from './lib/sse-client.js';
import { max, mean, min, nowMs, percentile, sleep } from './lib/stats.js';
import type { BenchResult, CommonBenchOptions } from './lib/types.js';
import { opt, type BenchDefinition } from './lib/bench-definition.js';

export interface RelayOptions extends CommonBenchOptions {
  /** Wallet sales paid at the platform and timed. */
  count?: number;
  /** How long the QR stays unpaid before the platform is told the customer paid: uniform in [min, max] ms. */
  payAfterMinMs?: number;
  payAfterMaxMs?: number;
}

interface RelaySample {
  /** Paid at the platform until the SSE client read the final transaction.updated. */
  latency: number;
  /** Status calls made for this transaction while it was pending. */
  calls: number;
  /** Sale started (POST) until final seen, seconds: the transaction's life at the platform while pending. */
  pendingSeconds: number;
  /** Sale started until the SSE client saw the QR, ms. */
  qrAfter: number;
  /** Shortest gap between two status calls of this transaction, ms. */
  minGap: number;
}

const isFor = (id: string) => (e: SseEvent) => e.data.clientTransactionId === id;

/**
 * Wallet event relay (docs/performance.md, "Quality targets"): a walletA consumer-scan sale is shown
 * as QR, the test pays it at the demo platform after a random wait, and an SSE client of
 * /api/v1/events times the final transaction.updated. The platform client's status call is
 * wrapped to count status calls per pending transaction.
 */
export async function benchRelay(opts: RelayOptions = {}): Promise<BenchResult> {
  const count = opts.count ?? 20;
  const payMin = opts.payAfterMinMs ?? 1_000;
  const payMax = Math.max(payMin, opts.payAfterMaxMs ?? 2_000);
  // walletPayDelayMs 0: the platform pays only when told to.
  const b = await startBenchAgent({ ...opts, walletPayDelayMs: 0 });
  const platform = b.agent.demoPlatform;
  if (platform === undefined) {
    await b.stop();
    throw new Error('the relay bench needs the embedded demo platform');
  }
  const statusCalls = new Map<string, number[]>();
  const client = b.agent.platformClient;
  const status = client.status.bind(client);
  client.status = (id, callOpts) => {
    const list = statusCalls.get(id) ?? [];
    list.push(nowMs());
    statusCalls.set(id, list);
    return status(id, callOpts);
  };
  let sse: SseClient | undefined;
  const samples: RelaySample[] = [];
  try {
    sse = await SseClient.connect(b.agent.url, b.agent.localToken);
    for (let i = 0; i < count; i++) {
      const startedAt = nowMs();
      const id = await postSale(
        b.agent,
        { method: 'walletA', scenario: 'ConsumerScan', amount: '5.00', currency: 'EUR' },
        10_000,
      );
      const qr = await sse.waitFor((e) => e.type === 'display.qr' && isFor(id)(e), 10_000);
      await sleep(payMin + Math.random() * (payMax - payMin));
      const paidAt = nowMs();
      platform.payments.wallet.pay(id);
      const final = await sse.waitFor(
        (e) => e.type === 'transaction.updated' && isFor(id)(e) && SETTLED_STATES.has(String(e.data.status)),
        15_000,
      );
      if (final.data.status !== 'approved')
        throw new Error(`wallet sale ${id} ended ${String(final.data.status)}, not approved`);
      const calls = (statusCalls.get(id) ?? []).filter((t) => t >= startedAt && t <= final.at);
      const gaps = calls.slice(1).map((t, k) => t - (calls[k] as number));
      samples.push({
        latency: final.at - paidAt,
        calls: calls.length,
        pendingSeconds: (final.at - startedAt) / 1000,
        qrAfter: qr.at - startedAt,
        minGap: min(gaps),
      });
      statusCalls.delete(id);
      sse.clear();
    }
  } finally {
    client.status = status;
    await sse?.close();
    await b.stop();
  }

  const latencies = samples.map((s) => s.latency);
  const rates = samples.map((s) => s.calls / s.pendingSeconds);
  const p95 = percentile(latencies, 95);
  // Compared as shown (two decimals): the policy polls at exactly 2/s, and timer rounding must not flip the verdict.
  const worstRate = Math.round(max(rates) * 100) / 100;
  const gaps = samples.map((s) => s.minGap).filter((g) => Number.isFinite(g));
  const totalCalls = samples.reduce((a, s) => a + s.calls, 0);
  const totalSeconds = samples.reduce((a, s) => a + s.pendingSeconds, 0);
  return {
    name: 'relay',
    params: { count, payAfterMs: `${payMin}-${payMax}` },
    rows: [
      { measure: 'paid at platform -> final event on SSE, p50', value: percentile(latencies, 50), unit: 'ms' },
      {
        measure: 'paid at platform -> final event on SSE, p95',
        value: p95,
        unit: 'ms',
        target: '<= 1000 ms',
        met: p95 <= 1_000,
      },
      { measure: 'paid at platform -> final event on SSE, max', value: max(latencies), unit: 'ms' },
      { measure: 'status calls per second per pending tx, mean', value: totalCalls / totalSeconds, unit: '/s' },
      {
        measure: 'status calls per second per pending tx, worst',
        value: worstRate,
        unit: '/s',
        target: '<= 2 /s',
        met: worstRate <= 2,
      },
      { measure: 'shortest gap between status calls of one tx', value: min(gaps), unit: 'ms' },
    ],
    notes: [
      `each QR stayed unpaid ${payMin}-${payMax} ms (uniform), so payment lands at a random point of the polling period`,
      `pending time per transaction: mean ${mean(samples.map((s) => s.pendingSeconds)).toFixed(2)} s, from the POST to the final event seen (QR on SSE after ${percentile(
        samples.map((s) => s.qrAfter),
        50,
      ).toFixed(1)} ms, p50); status calls counted in that time`,
    ],
  };
}

/** Found by scripts/bench/run.ts. */
export const bench: BenchDefinition = {
  order: 4,
  quickCount: 10,
  run: (o) => benchRelay({ certsDir: o.certsDir, ...opt('count', o.count) }),
};
