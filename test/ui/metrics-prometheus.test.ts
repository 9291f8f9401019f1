import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import { call, untilTransaction } from '../helpers/http-client.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { until } from '../helpers/wait.js';

/**
 * GET /metrics read by the tools a fleet runs (docs/operations.md, "Metrics"): `promtool
 * check metrics` on the text format, and a real Prometheus scraping the running agent (it
 * asks for OpenMetrics). Both come with Debian's `prometheus` package.
 */
let t: TestAgent;
let agent: RunningAgent;
let prometheus: ChildProcess | undefined;
let cleanup: () => void;

beforeAll(async () => {
  t = await startTestAgent({ level: 'info' });
  agent = t.agent;
  // A sale through the local API, which counts it.
  agent.simulated!.reader.nextCard({ delayMs: 20 });
  const auth = { authorization: `Bearer ${agent.localToken}` };
  const sale = await call(agent.url, 'POST', '/api/v1/sales', {
    headers: auth,
    body: { method: 'card', amount: '4.10', currency: 'EUR' },
  });
  const id = sale.json.transaction.clientTransactionId as string;
  await untilTransaction(agent.url, auth, id, 'approved', { everyMs: 50 });
});
afterAll(async () => {
  prometheus?.kill('SIGKILL');
  await t?.stop();
  cleanup?.();
});

function run(command: string, args: string[], input: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, (err, stdout, stderr) => {
      if (err !== null && typeof err.code !== 'number')
        reject(new Error(`${command} cannot run (${err.message}): install Debian's prometheus package`));
      else resolve({ code: typeof err?.code === 'number' ? err.code : 0, out: `${stdout}${stderr}` });
    });
    child.stdin?.end(input);
  });
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('metrics as a fleet reads them', () => {
  it('promtool check metrics finds nothing to say about the text format', async () => {
    const scrape = await call(agent.url, 'GET', '/metrics');
    expect(scrape.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const checked = await run('promtool', ['check', 'metrics'], scrape.text);
    expect(checked.out).toBe('');
    expect(checked.code).toBe(0);
  });

  it('a real Prometheus scrapes the agent in OpenMetrics and groups it by version, serial number and environment', async () => {
    const work = tempDir('terminal-agent-prometheus-');
    cleanup = work.cleanup;
    const port = await freePort();
    const target = new URL(agent.url).host;
    const config = join(work.dir, 'prometheus.yml');
    writeFileSync(
      config,
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: terminal\n    static_configs:\n      - targets: ['${target}']\n`,
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(work.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const query = async (q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
      try {
        const r = await call(`http://127.0.0.1:${port}`, 'GET', `/api/v1/query?query=${encodeURIComponent(q)}`);
        return r.status === 200
          ? (r.json.data.result as Array<{ metric: Record<string, string>; value: [number, string] }>)
          : [];
      } catch {
        return [];
      }
    };
    const info = await until(
      'Prometheus to have scraped terminal_agent_info',
      () => query('terminal_agent_info'),
      (result) => result.length > 0,
      { timeoutMs: 30_000, everyMs: 200 },
    );
    expect(info[0]?.metric).toMatchObject({
      job: 'terminal',
      serial_number: agent.identity.serialNumber,
      environment: 'local',
      node_version: process.versions.node,
    });
    expect((await query('up{job="terminal"}'))[0]?.value[1]).toBe('1');
    expect((await query('terminal_agent_sales_total{outcome="approved"}'))[0]?.value[1]).toBe('1');
    expect((await query('terminal_agent_sale_duration_seconds_count{method="card"}'))[0]?.value[1]).toBe('1');
  }, 60_000);
});
