/**
 * `npm run chaos:offline` (node dist/scripts/chaos/offline/run.js [--sales 100] [--kills 20] [--seed N]):
 * the offline chaos through the front door: the agent as `terminal-agent start` runs it, the
 * platform unreachable most of the time (its own offline path: reader approval, policy,
 * queue, uploader), SIGKILL at random points; see scripts/chaos/online/run.ts.
 *
 * `runOfflineChaos` below is the component kill test of the offline queue and uploader
 * (test/offline/kill.test.ts), not the chaos run: its child builds the offline sale itself
 * (docs/architecture.md, "Invariants" 1): a child process takes a
 * burst of offline card sales while its uploader drains them to the demo platform, and is
 * killed with SIGKILL at random points (after a random number of its durable output lines),
 * then started again on the same data directory. Each run injects a different platform
 * trouble (unavailable then back, every Nth upload failing with 503, answers lost after the
 * platform recorded the sale while its lookups lag its writes). A last run drains the
 * queue. Then: every sale the child reported approved, and every sale in its queue, is at
 * the platform exactly once with its amount; nothing else is; nothing is left unresolved.
 *
 * Standalone: npx tsc -p . && node dist/scripts/chaos/offline/run.js [--kills 20] [--sales 50] [--seed N]
 * The test test/offline/kill.test.ts runs the same with a few kills.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import type { FaultInjector, FaultSpec } from '../../../src/sim/platform/faults.js';
import type { LedgerEntry } from '../../../src/sim/platform/payments/index.js';
import type { ChaosPlatform } from '../lib/chaos-platform.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { chaosMain } from '../online/run.js';
import type { BurstOptions } from './child-options.js';

export interface ChaosOptions {
  platform: ChaosPlatform;
  certs: { certFile: string; keyFile: string; caFile: string };
  dataDir: string;
  /** Compiled child script (dist/scripts/chaos/offline/child.js). */
  script: string;
  kills: number;
  salesPerRun: number;
  seed: number;
  prefix?: string;
  /** A run that does not reach its kill point or drain within this is a failure. */
  runTimeoutMs?: number;
  onLine?: (run: number, line: string) => void;
}

export interface ChaosRun {
  run: number;
  trouble: string;
  killAfterLines: number | null;
  lines: number;
  approved: number;
  settled: number;
  killed: boolean;
  exitCode: number | null;
  stderr: string;
}

export interface ChaosResult {
  seed: number;
  runs: ChaosRun[];
  /** id -> amount, as the child told the customer. */
  approved: Map<string, number>;
  stored: number;
  uploaded: number;
  /** Approved but not at the platform, or not in the queue. */
  lost: string[];
  /** At the platform more than once. */
  duplicated: string[];
  /** At the platform with another amount. */
  wrongAmount: string[];
  /** At the platform but never stored. */
  phantom: string[];
  /** Still waiting, or needing attention, after the drain. */
  unresolved: string[];
}

interface Trouble {
  name: string;
  set(faults: FaultInjector): void;
  /** Called on each APPROVED line: e.g. the platform comes back mid-run. */
  onApproved?(faults: FaultInjector, approvedInRun: number): void;
}

const troubles: Trouble[] = [
  {
    name: 'platform unavailable, back after 5 sales',
    set: (f) => f.set('isAvailable', { status: 503 }),
    onApproved: (f, n) => {
      if (n === 5) f.clear('isAvailable');
    },
  },
  {
    name: 'every 3rd upload answers 503',
    set: (f) => f.set('process', { status: 503, everyNth: 3 } satisfies FaultSpec),
  },
  {
    // Lookups (and the platform's own check of a repeated client id) lag its writes by 1 s, less
    // than the child's lookup grace (2 s): an upload sent again on a 404 inside the lag is a second sale.
    name: 'every 4th upload recorded, answer lost; lookups lag writes by 1 s',
    set: (f) => {
      f.set('process', { drop: 'after', everyNth: 4 } satisfies FaultSpec);
      f.set('*', { lookupLagMs: 1_000 } satisfies FaultSpec);
    },
  },
  { name: 'no trouble', set: () => {} },
];

function runChild(
  opts: ChaosOptions,
  args: BurstOptions,
  killAfterLines: number | null,
  trouble: Trouble | undefined,
  approved: Map<string, number>,
): Promise<ChaosRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [opts.script, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: ChaosRun = {
      run: args.run,
      trouble: trouble?.name ?? 'drain',
      killAfterLines,
      lines: 0,
      approved: 0,
      settled: 0,
      killed: false,
      exitCode: null,
      stderr: '',
    };
    let drained = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `run ${args.run} (${run.trouble}) neither reached its kill point nor finished within ${opts.runTimeoutMs ?? 60_000} ms; stderr: ${run.stderr.slice(-500)}`,
        ),
      );
    }, opts.runTimeoutMs ?? 60_000);
    child.stderr.on('data', (d: Buffer) => {
      run.stderr = (run.stderr + d.toString('utf8')).slice(-4_000);
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      opts.onLine?.(args.run, line);
      const [kind, id, value] = line.split(' ');
      if (kind === 'APPROVED' && id !== undefined) {
        approved.set(id, Number(value));
        run.approved++;
        trouble?.onApproved?.(opts.platform.faults, run.approved);
      } else if (kind === 'SETTLED') run.settled++;
      else if (kind === 'DRAINED') drained = true;
      if (kind === 'APPROVED' || kind === 'SETTLED') run.lines++;
      if (killAfterLines !== null && !run.killed && run.lines >= killAfterLines) {
        run.killed = child.kill('SIGKILL');
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      run.exitCode = code;
      if (killAfterLines === null && (!drained || code !== 0)) {
        reject(
          new Error(
            `drain run exited with ${code}${drained ? '' : ' without draining'}; stderr: ${run.stderr.slice(-500)}`,
          ),
        );
        return;
      }
      if (killAfterLines !== null && !run.killed) {
        reject(
          new Error(
            `run ${args.run} exited by itself (${code}) before its kill point; stderr: ${run.stderr.slice(-500)}`,
          ),
        );
        return;
      }
      resolveRun(run);
    });
  });
}

export async function runOfflineChaos(opts: ChaosOptions): Promise<ChaosResult> {
  const random = seededRandom(opts.seed);
  const prefix = opts.prefix ?? `chaos${opts.seed}`;
  const approved = new Map<string, number>();
  const runs: ChaosRun[] = [];
  const base = {
    apiUrl: opts.platform.apiUrl,
    mtlsUrl: opts.platform.mtlsUrl,
    ...opts.certs,
    dataDir: opts.dataDir,
    prefix,
    sales: opts.salesPerRun,
  };
  for (let run = 0; run < opts.kills; run++) {
    const trouble = troubles[run % troubles.length] as Trouble;
    opts.platform.faults.clear();
    trouble.set(opts.platform.faults);
    // Counted lines are APPROVED and SETTLED; the APPROVED lines alone reach salesPerRun.
    const killAfter = 1 + Math.floor(random() * opts.salesPerRun);
    runs.push(await runChild(opts, { ...base, run, pauseMs: Math.floor(random() * 8) }, killAfter, trouble, approved));
  }
  opts.platform.faults.clear();
  runs.push(await runChild(opts, { ...base, run: opts.kills, sales: 0, drain: true }, null, undefined, approved));
  return { seed: opts.seed, runs, approved, ...check(opts, prefix, approved) };
}

function check(
  opts: ChaosOptions,
  prefix: string,
  approved: Map<string, number>,
): Omit<ChaosResult, 'seed' | 'runs' | 'approved'> {
  const db = new Database(join(opts.dataDir, 'journal.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const items = db.prepare('SELECT client_id, amount, state FROM offline_queue').all() as Array<{
      client_id: string;
      amount: number;
      state: string;
    }>;
    const openRows = db.prepare("SELECT client_id FROM transactions WHERE state = 'offline_stored'").all() as Array<{
      client_id: string;
    }>;
    const stored = new Map(items.map((i) => [i.client_id, i]));
    const sales = new Map<string, LedgerEntry[]>();
    for (const e of opts.platform.ledger()) {
      if (!e.paymentClientTransactionId.startsWith(`${prefix}-`)) continue;
      const list = sales.get(e.paymentClientTransactionId) ?? [];
      list.push(e);
      sales.set(e.paymentClientTransactionId, list);
    }
    const lost: string[] = [];
    const duplicated: string[] = [];
    const wrongAmount: string[] = [];
    for (const [id, amount] of approved) {
      const item = stored.get(id);
      if (item === undefined) lost.push(id);
      else if (item.amount !== amount) wrongAmount.push(id);
    }
    for (const [id, item] of stored) {
      const moves = (sales.get(id) ?? []).filter((e) => e.kind === 'sale' || e.kind === 'authorization');
      if (moves.length === 0) lost.push(id);
      else if (moves.length > 1) duplicated.push(id);
      else if (moves[0]?.amount !== item.amount) wrongAmount.push(id);
    }
    const phantom = [...sales.keys()].filter((id) => !stored.has(id));
    const unresolved = [
      ...items.filter((i) => i.state !== 'uploaded').map((i) => `${i.client_id}:${i.state}`),
      ...openRows.map((r) => `${r.client_id}:journal offline_stored`),
    ];
    return {
      stored: items.length,
      uploaded: items.filter((i) => i.state === 'uploaded').length,
      lost: [...new Set(lost)],
      duplicated,
      wrongAmount: [...new Set(wrongAmount)],
      phantom,
      unresolved,
    };
  } finally {
    db.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  // The offline chaos goes through the front door: the agent's own offline path (online/run.ts, front-door/).
  chaosMain('offline', process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  });
}
