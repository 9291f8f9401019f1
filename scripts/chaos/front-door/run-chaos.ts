import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FaultInjector } from '../../../src/sim/platform/faults.js';
import type { LedgerEntry } from '../../../src/sim/platform/payments/index.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { compareJournalWithLedger, type Comparison } from '../online/compare.js';
import { CLIENT_TIMEOUT_MS, LOOKUP_GRACE_MS, startFaultSwitcher, type FaultScenario } from '../online/faults.js';
import { readJournalRows } from '../online/journal-rows.js';
import { agentPaths, spawnAgent, writeAgentConfig, type AgentProcess } from './agent-process.js';
import { Counter, type WalletCustomers } from './customer.js';
import { startDiskFullSwitcher } from './disk-full.js';
import { startProxy } from './proxy.js';

/**
 * Chaos through the front door (docs/architecture.md, "Invariants"): the demo platform runs
 * in this process (it survives the kills; its ledger is the truth), behind two TCP
 * pass-throughs that can make it unreachable; the agent runs as `terminal-agent start` in a
 * child process; a counter of workers takes sales and operations through the local API and
 * notes what each sale's client was told as final. Platform faults are switched on at
 * random; the agent is killed with SIGKILL at random moments (during start-up, or a few
 * ms after a sale started) and started again on the same data directory. At the end the
 * faults are off, the agent settles (offline uploads included) and stops; the journal, the
 * ledger and what was told are compared (online/compare.ts).
 */
export interface FrontDoorPlatform {
  apiPort: number;
  mtlsPort: number;
  faults: FaultInjector;
  ledger(): LedgerEntry[];
  /** The wallet provider's side of consumer-scan sales; without it the counter sells wallets by merchant scan only. */
  wallets?: WalletCustomers;
}

export interface FrontDoorOptions {
  platform: FrontDoorPlatform;
  certs: { certFile: string; keyFile: string; caFile: string };
  dir: string;
  bin: string;
  sales: number;
  kills: number;
  seed: number;
  workers?: number;
  scenarios?: readonly FaultScenario[];
  /** Share of the workers' turns spent on refunds, cancels and captures. */
  operationShare?: number;
  settleTimeoutMs?: number;
  /** Disk-full moments at random (disk-full.ts): the agent's file-size limit lowered for a while. */
  diskFull?: boolean;
  /** When set (a run kept with --keep): each agent start's output goes to agent-N.log here, and the platform's ledger to ledger.json at the end. */
  keepDir?: string;
  onEvent?: (line: string) => void;
}

export interface FrontDoorResult {
  seed: number;
  sales: number;
  kills: number;
  starts: number;
  told: Record<string, number>;
  ops: Record<string, number>;
  faults: Record<string, number>;
  /** Disk-full episodes switched on (0 without diskFull). */
  diskFullEpisodes: number;
  openAtEnd: number;
  comparison: Comparison;
  /** Sale id -> what its client saw as final, in words. */
  toldAs: Map<string, string>;
}

type Plan = { kind: 'early'; afterMs: number } | { kind: 'at-sale'; sale: number; afterMs: number };

/** Rows the agent still settles: `pending` is a refund or cancel whose result is still to come (the relay follows it). */
const OPEN = new Set(['created', 'awaiting_customer', 'in_flight', 'pending', 'reversing', 'offline_stored']);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runFrontDoorChaos(o: FrontDoorOptions): Promise<FrontDoorResult> {
  const random = seededRandom(o.seed);
  const log = o.onEvent ?? (() => {});
  const apiProxy = await startProxy(o.platform.apiPort);
  const mtlsProxy = await startProxy(o.platform.mtlsPort);
  const reach = {
    down: async () => {
      await Promise.all([apiProxy.down(), mtlsProxy.down()]);
    },
    up: async () => {
      await Promise.all([apiProxy.up(), mtlsProxy.up()]);
    },
  };
  const paths = agentPaths(o.dir);
  const settings = {
    bin: o.bin,
    ...paths,
    certs: o.certs,
    apiPort: apiProxy.port,
    mtlsPort: mtlsProxy.port,
    clientTimeoutMs: CLIENT_TIMEOUT_MS,
    lookupGraceMs: LOOKUP_GRACE_MS,
  };
  writeAgentConfig(settings);
  const counter = new Counter(paths.dataDir, random, o.platform.wallets);
  const agentLog = (n: number): string | undefined =>
    o.keepDir === undefined ? undefined : join(o.keepDir, `agent-${n}.log`);
  const plans: Plan[] = Array.from({ length: o.kills }, () => 1 + Math.floor(random() * Math.max(1, o.sales - 1)))
    .sort((a, b) => a - b)
    .map((sale) =>
      random() < 0.2
        ? { kind: 'early', afterMs: 100 + Math.floor(random() * 900) }
        : { kind: 'at-sale', sale, afterMs: Math.floor(random() * 300) },
    );
  let kills = 0;
  let starts = 0;
  let agent: AgentProcess | undefined;
  // The agent once it serves: disk-full moments come while it takes sales (one starting on a
  // full disk refuses to start, which the run would count as a crash).
  let serving: AgentProcess | undefined;
  // An agent that dies when nobody killed it ends the run: that is a finding, not chaos.
  let crashed: string | undefined;
  const start = async (): Promise<void> => {
    starts++;
    const a = spawnAgent(settings, agentLog(starts));
    agent = a;
    void a.exited.then(({ code, signal }) => {
      if (agent === a) crashed = `the agent exited by itself (${code ?? signal}): ${a.stderr().slice(-1_500)}`;
    });
    counter.connect(await a.ready);
    serving = a;
  };
  const kill = async (): Promise<void> => {
    const a = agent;
    if (a === undefined) return;
    agent = undefined;
    counter.disconnect();
    a.child.kill('SIGKILL');
    await a.exited;
    kills++;
    log(`kill ${kills} at ${counter.started} sales`);
  };
  const switcher = startFaultSwitcher(o.platform.faults, random, reach, o.scenarios);
  // Its own random source: the same seed gives the same sales and faults with or without it.
  const diskFull =
    o.diskFull === true
      ? startDiskFullSwitcher({
          pid: () => (serving !== undefined && serving === agent ? serving.child.pid : undefined),
          dataDir: paths.dataDir,
          random: seededRandom(o.seed + 1),
          onEvent: log,
        })
      : undefined;
  let planIndex = 0;
  let killing: Promise<void> | undefined;
  const onStarted = (n: number): void => {
    const plan = plans[planIndex];
    if (plan?.kind === 'at-sale' && n >= plan.sale && killing === undefined) {
      planIndex++;
      killing = sleep(plan.afterMs).then(kill);
    }
  };
  try {
    for (;;) {
      const plan = plans[planIndex];
      // A kill during start-up (recovery), or one whose sale the stream never reached.
      if (plan !== undefined && (plan.kind === 'early' || counter.started >= o.sales)) {
        planIndex++;
        starts++;
        agent = spawnAgent(settings, agentLog(starts));
        await sleep(plan.afterMs + (plan.kind === 'early' ? 0 : 500));
        await kill();
        continue;
      }
      if (counter.started >= o.sales) break;
      await start();
      killing = undefined;
      const opShare = o.operationShare ?? 0.35;
      const worker = async (): Promise<void> => {
        while (counter.started < o.sales && agent !== undefined && killing === undefined) {
          if (crashed !== undefined) throw new Error(crashed);
          if (random() < opShare) await counter.operate();
          else await counter.sale(onStarted);
        }
      };
      await Promise.all(Array.from({ length: o.workers ?? 3 }, () => worker()));
      // Set by the kill plan's callback while the workers ran (the compiler's narrowing does not see it).
      const pendingKill = killing as Promise<void> | undefined;
      if (pendingKill !== undefined) await pendingKill;
      else if (plans[planIndex] !== undefined) {
        // The stream ended before this kill's sale: it happens now, while the agent settles.
        planIndex++;
        await kill();
      }
    }
  } finally {
    switcher.stop();
    await diskFull?.stop();
    await reach.up();
  }
  // Faults off: the agent settles what it holds (recovery, reversals, offline uploads, and
  // the late-landing watch reversing a sale that landed after it was counted as not done:
  // such a row is `failed`, not open, so the ledger tells when one is still to be reversed).
  if (agent === undefined) await start();
  const until = performance.now() + (o.settleTimeoutMs ?? 120_000);
  let open: number;
  for (;;) {
    await counter.flushOffline();
    const rows = readJournalRows(paths.dataDir);
    open = rows.filter((r) => OPEN.has(r.state)).length;
    const landedLate = compareJournalWithLedger(rows, o.platform.ledger(), counter.told, counter.opsTold).lost.filter(
      (f) => f.detail.startsWith('journal failed,'),
    ).length;
    if ((open === 0 && landedLate === 0) || performance.now() > until) break;
    await sleep(500);
  }
  const a = agent;
  if (a !== undefined) {
    a.child.kill('SIGTERM');
    await a.exited;
  }
  await apiProxy.close();
  await mtlsProxy.close();
  const comparison = compareJournalWithLedger(
    readJournalRows(paths.dataDir),
    o.platform.ledger(),
    counter.told,
    counter.opsTold,
  );
  if (o.keepDir !== undefined) {
    writeFileSync(join(o.keepDir, 'ledger.json'), JSON.stringify(o.platform.ledger(), null, 1));
    writeFileSync(join(o.keepDir, 'told.json'), JSON.stringify(Object.fromEntries(counter.toldAs), null, 1));
  }
  const told: Record<string, number> = {};
  for (const t of counter.told.values()) told[t] = (told[t] ?? 0) + 1;
  told['not told (agent killed first)'] = counter.started - counter.told.size;
  return {
    seed: o.seed,
    sales: counter.started,
    kills,
    starts,
    told,
    ops: Object.fromEntries(counter.ops),
    faults: Object.fromEntries(switcher.used),
    diskFullEpisodes: diskFull?.episodes ?? 0,
    openAtEnd: open,
    comparison,
    toldAs: counter.toldAs,
  };
}
