/**
 * Online chaos (README.md, "Quality targets": "20 `kill -9` at random points in 1,000
 * mixed sales: 0 lost, 0 duplicated, 0 unresolved"). The demo platform runs in this process, so
 * it survives the kills and its ledger is the truth. A child process (the compiled
 * scripts/chaos/online/child.ts) runs the payments engine on a SQLite journal against it over
 * mTLS and takes a stream of mixed sales, refunds, cancels and captures while platform
 * faults are switched on now and then. The child is killed with SIGKILL at random moments
 * (mid-stream, or during its start-up recovery) and started again on the same journal; a
 * run without a kill finishes the stream, and a last run recovers with the faults off.
 * Then the journal (read-only) is compared with the platform's ledger.
 *
 * Standalone: npx tsc -p . && node dist/scripts/chaos/online/run.js [--sales 1000] [--kills 20] [--seed N] [--workers 4] [--json]
 * Exit 1 when anything is lost, duplicated, unresolved or disagrees with the platform.
 * The test test/chaos/chaos.test.ts runs it small.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../lib/repo.js';
import type { ChaosPlatform } from '../lib/chaos-platform.js';
import { seededRandom } from '../lib/seeded-random.js';
import { compareJournalWithLedger, type Comparison, type Finding } from './compare.js';
import { startFaultSwitcher } from './faults.js';
import { readJournalRows } from './journal-rows.js';
import type { ChaosChildOptions } from './child-protocol.js';

export interface OnlineChaosOptions {
  platform: ChaosPlatform;
  certs: { certFile: string; keyFile: string; caFile: string };
  dataDir: string;
  /** Compiled child script (dist/scripts/chaos/online/child.js). */
  script: string;
  sales: number;
  kills: number;
  seed: number;
  workers?: number;
  /** A run that neither reaches its kill nor ends within this is a failure. */
  runTimeoutMs?: number;
  onLine?: (run: number, line: string) => void;
}

type KillPlan = { kind: 'early'; afterMs: number } | { kind: 'at-sale'; sale: number; afterMs: number } | { kind: 'none' };

export interface OnlineChaosRun {
  run: number;
  plan: string;
  /** Sales in the journal when the child was ready (after its recovery); null when killed before. */
  readyWith: number | null;
  recovered: string | null;
  salesStarted: number;
  killed: boolean;
  exitCode: number | null;
  signal: string | null;
  ms: number;
  stderr: string;
}

export interface OnlineChaosResult {
  seed: number;
  sales: number;
  kills: number;
  runs: OnlineChaosRun[];
  /** Fault scenario -> times switched on. */
  faults: Record<string, number>;
  comparison: Comparison;
}

function describePlan(plan: KillPlan): string {
  if (plan.kind === 'early') return `kill ${plan.afterMs} ms after spawn (start-up / recovery)`;
  if (plan.kind === 'at-sale') return `kill ${plan.afterMs} ms after sale ${plan.sale}`;
  return 'no kill';
}

function runChild(opts: OnlineChaosOptions, run: number, args: ChaosChildOptions, plan: KillPlan, onSalesDone: () => void): Promise<OnlineChaosRun> {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [opts.script, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const result: OnlineChaosRun = { run, plan: describePlan(plan), readyWith: null, recovered: null, salesStarted: 0, killed: false, exitCode: null, signal: null, ms: 0, stderr: '' };
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timeoutMs = opts.runTimeoutMs ?? 60_000 + 300 * opts.sales;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`run ${run} (${result.plan}) did not end within ${timeoutMs} ms; stderr: ${result.stderr.slice(-800)}`));
    }, timeoutMs);
    const killIn = (ms: number): void => {
      if (killTimer !== undefined) return;
      killTimer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) result.killed = child.kill('SIGKILL');
      }, ms);
    };
    if (plan.kind === 'early') killIn(plan.afterMs);
    child.stderr.on('data', (d: Buffer) => {
      result.stderr = (result.stderr + d.toString('utf8')).slice(-4_000);
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      opts.onLine?.(run, line);
      const [kind, first] = line.split(' ');
      if (kind === 'READY') {
        result.readyWith = Number(first);
        result.recovered = line.split(' ').slice(2).join(' ');
        if (plan.kind === 'at-sale' && result.readyWith >= plan.sale) killIn(plan.afterMs);
      } else if (kind === 'SALE') {
        result.salesStarted++;
        if (plan.kind === 'at-sale' && Number(first) >= plan.sale) killIn(plan.afterMs);
      } else if (kind === 'SALES_DONE') {
        onSalesDone();
        // A kill planned for this run still happens, while the child settles.
        if (plan.kind !== 'none') killIn(0);
      } else if (kind === 'SETTLED') settled = true;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      result.exitCode = code;
      result.signal = signal;
      result.ms = Math.round(performance.now() - started);
      if (plan.kind !== 'none' && !result.killed) {
        reject(new Error(`run ${run} exited by itself (${code ?? signal}) before its kill (${result.plan}); stderr: ${result.stderr.slice(-800)}`));
      } else if (plan.kind === 'none' && (code !== 0 || !settled)) {
        reject(new Error(`run ${run} exited with ${code ?? signal}${settled ? '' : ' without settling'}; stderr: ${result.stderr.slice(-800)}`));
      } else resolveRun(result);
    });
  });
}

/** Kill moments: about one in five during start-up (recovery), the rest after a random sale. */
function killPlans(random: () => number, kills: number, sales: number): KillPlan[] {
  const points = Array.from({ length: kills }, () => 1 + Math.floor(random() * Math.max(1, sales - 1))).sort((a, b) => a - b);
  return points.map((sale) =>
    random() < 0.2 ? { kind: 'early', afterMs: 150 + Math.floor(random() * 1_350) } : { kind: 'at-sale', sale, afterMs: Math.floor(random() * 60) },
  );
}

export async function runOnlineChaos(opts: OnlineChaosOptions): Promise<OnlineChaosResult> {
  const random = seededRandom(opts.seed);
  const base = {
    apiUrl: opts.platform.apiUrl,
    mtlsUrl: opts.platform.mtlsUrl,
    ...opts.certs,
    dataDir: opts.dataDir,
    sales: opts.sales,
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
  };
  const runs: OnlineChaosRun[] = [];
  const switcher = startFaultSwitcher(opts.platform.faults, random);
  const faultsOff = (): void => switcher.stop();
  try {
    const plans = killPlans(random, opts.kills, opts.sales);
    for (const [run, plan] of plans.entries()) {
      runs.push(await runChild(opts, run, { ...base, seed: opts.seed * 1_000 + run }, plan, () => {}));
    }
    // The stream goes on to its end; the faults stop when the last sale is taken.
    runs.push(await runChild(opts, plans.length, { ...base, seed: opts.seed * 1_000 + plans.length }, { kind: 'none' }, faultsOff));
  } finally {
    faultsOff();
  }
  // A last start on the same journal: its recovery must leave nothing open.
  runs.push(await runChild(opts, runs.length, { ...base, seed: opts.seed * 1_000 + runs.length, final: true }, { kind: 'none' }, () => {}));
  const comparison = compareJournalWithLedger(readJournalRows(opts.dataDir), opts.platform.ledger());
  return { seed: opts.seed, sales: opts.sales, kills: runs.filter((r) => r.killed).length, runs, faults: Object.fromEntries(switcher.used), comparison };
}

export interface ChaosReport {
  seed: number;
  sales: number;
  kills: number;
  seconds: number;
  lost: number;
  duplicated: number;
  unresolved: number;
  mismatched: number;
  journal: Comparison['journal'];
  platform: Comparison['platform'];
  faults: Record<string, number>;
  runs: Array<Pick<OnlineChaosRun, 'run' | 'plan' | 'readyWith' | 'recovered' | 'salesStarted' | 'killed' | 'ms'>>;
  findings: { lost: Finding[]; duplicated: Finding[]; unresolved: Finding[]; mismatched: Finding[] };
}

export function chaosReport(result: OnlineChaosResult, seconds: number): ChaosReport {
  const c = result.comparison;
  return {
    seed: result.seed,
    sales: c.journal.sales,
    kills: result.kills,
    seconds,
    lost: c.lost.length,
    duplicated: c.duplicated.length,
    unresolved: c.unresolved.length,
    mismatched: c.mismatched.length,
    journal: c.journal,
    platform: c.platform,
    faults: result.faults,
    runs: result.runs.map(({ run, plan, readyWith, recovered, salesStarted, killed, ms }) => ({ run, plan, readyWith, recovered, salesStarted, killed, ms })),
    findings: { lost: c.lost.slice(0, 50), duplicated: c.duplicated.slice(0, 50), unresolved: c.unresolved.slice(0, 50), mismatched: c.mismatched.slice(0, 50) },
  };
}

export function formatReport(r: ChaosReport): string {
  const lines = [
    `online chaos, seed ${r.seed}: ${r.sales} sales, ${r.kills} kills (SIGKILL), ${r.seconds} s`,
    `  journal sales by state: ${Object.entries(r.journal.byState).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  operations: ${Object.entries(r.journal.byOperation).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `  platform: ${r.platform.entries} ledger entries, ${r.platform.salesCharged} sales moved money, net charged ${r.platform.netCharged}`,
    `  faults switched on: ${Object.entries(r.faults).map(([k, v]) => `${k} x${v}`).join('; ') || 'none'}`,
    ...r.runs.map((run) => `  run ${run.run}: ${run.plan}; ready with ${run.readyWith ?? '-'} sales, recovered ${run.recovered ?? '-'}; ${run.salesStarted} sales started; ${run.killed ? 'killed' : 'ended'} after ${run.ms} ms`),
    `  lost ${r.lost}, duplicated ${r.duplicated}, unresolved ${r.unresolved}, disagreeing with the platform ${r.mismatched}`,
  ];
  for (const [name, list] of Object.entries(r.findings)) for (const f of list) lines.push(`  ${name}: ${f.clientTransactionId}: ${f.detail}`);
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    const value = i > 0 ? Number(process.argv[i + 1]) : fallback;
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number, not "${process.argv[i + 1] ?? ''}"`);
    return value;
  };
  const json = process.argv.includes('--json');
  const sales = arg('sales', 1_000);
  const kills = arg('kills', 20);
  const seed = arg('seed', Date.now() % 1_000_000);
  const workers = arg('workers', 4);
  const root = repoRoot();
  const { generateDevCerts } = await import('../../../src/identity/dev-certs.js');
  const { startDemoPlatform } = await import('../../../src/sim/platform/server.js');
  const { createLogger } = await import('../../../src/core/logger.js');
  const dir = mkdtempSync(join(tmpdir(), 'chaos-online-'));
  try {
    const certs = generateDevCerts(join(dir, 'certs'));
    const platform = await startDemoPlatform({
      apiPort: 0,
      mtlsPort: 0,
      tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
      seed: join(root, 'config', 'demo-seed.json'),
      settings: { walletPayDelayMs: 0 },
      log: createLogger({ level: 'error', pretty: false, destination: process.stderr }),
    });
    try {
      const started = performance.now();
      const result = await runOnlineChaos({
        platform: { apiUrl: platform.urls.api, mtlsUrl: platform.urls.mtls, faults: platform.faults, ledger: () => platform.payments.ledger() },
        certs: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
        dataDir: join(dir, 'data'),
        script: join(root, 'dist', 'scripts', 'chaos', 'online', 'child.js'),
        sales,
        kills,
        seed,
        workers,
      });
      const report = chaosReport(result, Math.round((performance.now() - started) / 100) / 10);
      process.stdout.write(json ? `${JSON.stringify(report)}\n` : formatReport(report));
      if (report.lost + report.duplicated + report.unresolved + report.mismatched > 0) process.exitCode = 1;
    } finally {
      await platform.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  });
}
