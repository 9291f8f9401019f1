/**
 * Online chaos through the front door (docs/performance.md, "Chaos"): the agent as `terminal-agent
 * start` runs it, sales and operations through its local API, platform faults (latency, 5xx
 * after record, drops, failing lookups, a write landing after the client's timeout and
 * lookup grace, the platform unreachable), SIGKILL at random points, restarts on the same
 * data directory; then the journal, the platform's ledger and what each customer was told
 * are compared (scripts/chaos/online/compare.ts). The driver: scripts/chaos/front-door/.
 *
 * npm run build && npm run chaos -- [--sales 1000] [--kills 20] [--seed N] [--workers 3] [--disk-full] [--strict] [--json]
 * --disk-full adds disk-full moments at random (front-door/disk-full.ts: the agent's file-size
 * limit lowered with prlimit(1)). --strict runs the demo platform in its strict profile: refunds
 * answered Accepted before their result, wallets reported after the QR's expiry (some paid in its
 * last second), ids the agent invented never found, 400 for unknown ids.
 * Exit 1 when anything is lost, duplicated, unresolved, told wrongly or disagrees with the platform.
 * test/chaos/chaos.test.ts runs it small.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../lib/repo.js';
import { runFrontDoorChaos, type FrontDoorResult } from '../front-door/run-chaos.js';
import { diskFullAvailable } from '../front-door/disk-full.js';
import { FAULT_SCENARIOS, OFFLINE_SCENARIOS } from './faults.js';
import type { Comparison, Finding } from './compare.js';

export interface ChaosReport {
  mode: 'online' | 'offline';
  seed: number;
  sales: number;
  kills: number;
  starts: number;
  seconds: number;
  lost: number;
  duplicated: number;
  unresolved: number;
  toldWrongly: number;
  mismatched: number;
  offlineDeclined: number;
  told: Record<string, number>;
  ops: Record<string, number>;
  journal: Comparison['journal'];
  platform: Comparison['platform'];
  faults: Record<string, number>;
  diskFullEpisodes: number;
  findings: {
    lost: Finding[];
    duplicated: Finding[];
    unresolved: Finding[];
    toldWrongly: Finding[];
    mismatched: Finding[];
  };
}

export function chaosReport(mode: ChaosReport['mode'], r: FrontDoorResult, seconds: number): ChaosReport {
  const c = r.comparison;
  const top = (l: Finding[]): Finding[] =>
    l.slice(0, 50).map((f) => {
      const seen = r.toldAs.get(f.clientTransactionId);
      return seen === undefined ? f : { ...f, detail: `${f.detail} (the client saw: ${seen})` };
    });
  return {
    mode,
    seed: r.seed,
    sales: r.sales,
    kills: r.kills,
    starts: r.starts,
    seconds,
    lost: c.lost.length,
    duplicated: c.duplicated.length,
    unresolved: c.unresolved.length,
    toldWrongly: c.toldWrongly.length,
    mismatched: c.mismatched.length,
    offlineDeclined: c.offlineDeclined.length,
    told: r.told,
    ops: r.ops,
    journal: c.journal,
    platform: c.platform,
    faults: r.faults,
    diskFullEpisodes: r.diskFullEpisodes,
    findings: {
      lost: top(c.lost),
      duplicated: top(c.duplicated),
      unresolved: top(c.unresolved),
      toldWrongly: top(c.toldWrongly),
      mismatched: top(c.mismatched),
    },
  };
}

export const failures = (r: ChaosReport): number => r.lost + r.duplicated + r.unresolved + r.toldWrongly + r.mismatched;

export function formatReport(r: ChaosReport): string {
  const list = (m: Record<string, number>): string =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  const lines = [
    `${r.mode} chaos through the front door, seed ${r.seed}: ${r.sales} sales, ${r.kills} kills (SIGKILL), ${r.starts} agent starts, ${r.seconds} s`,
    `  told the customer: ${list(r.told)}`,
    `  journal sales by state: ${list(r.journal.byState)}`,
    `  operations asked: ${list(r.ops)}`,
    `  journal operations: ${list(r.journal.byOperation)}`,
    `  platform: ${r.platform.entries} ledger entries, ${r.platform.salesCharged} sales moved money, net charged ${r.platform.netCharged}`,
    `  faults switched on: ${
      Object.entries(r.faults)
        .map(([k, v]) => `${k} x${v}`)
        .join('; ') || 'none'
    }`,
    `  disk-full moments (journal cannot grow): ${r.diskFullEpisodes}`,
    `  lost ${r.lost}, duplicated ${r.duplicated}, unresolved ${r.unresolved}, told wrongly ${r.toldWrongly}, disagreeing with the platform ${r.mismatched}; approved offline then declined at upload ${r.offlineDeclined}`,
  ];
  for (const [name, l] of Object.entries(r.findings))
    for (const f of l) lines.push(`  ${name}: ${f.clientTransactionId}: ${f.detail}`);
  return `${lines.join('\n')}\n`;
}

export async function chaosMain(mode: ChaosReport['mode'], argv: string[]): Promise<void> {
  const arg = (name: string, fallback: number): number => {
    const i = argv.indexOf(`--${name}`);
    const value = i >= 0 ? Number(argv[i + 1]) : fallback;
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`--${name} needs a whole number, not "${argv[i + 1] ?? ''}"`);
    return value;
  };
  const json = argv.includes('--json');
  const sales = arg('sales', mode === 'online' ? 1_000 : 100);
  const kills = arg('kills', 20);
  const seed = arg('seed', Date.now() % 1_000_000);
  const workers = arg('workers', 3);
  const diskFull = argv.includes('--disk-full');
  // The demo platform answers from the contract's extremes (docs/demo-platform.md, "Demo platform").
  const strict = argv.includes('--strict');
  if (diskFull && !(await diskFullAvailable()))
    throw new Error('--disk-full needs prlimit(1) (util-linux) able to set a process file-size limit');
  const root = repoRoot();
  const { generateDevCerts } = await import('../../../src/identity/dev-certs.js');
  const { startDemoPlatform } = await import('../../../src/sim/platform/server.js');
  const { createLogger } = await import('../../../src/core/logger.js');
  const dir = mkdtempSync(join(tmpdir(), `chaos-${mode}-`));
  try {
    const certs = generateDevCerts(join(dir, 'certs'));
    const platform = await startDemoPlatform({
      apiPort: 0,
      mtlsPort: 0,
      tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
      seed: join(root, 'config', 'demo-seed.json'),
      // The customer pays only when the run plays it (front-door/customer.ts); a QR lasts 4 s.
      settings: { walletPayDelayMs: 0, qrExpirySeconds: 4, ...(strict ? { profile: 'strict' as const } : {}) },
      log: createLogger({ level: 'fatal', pretty: false, destination: process.stderr }),
    });
    try {
      const started = performance.now();
      const result = await runFrontDoorChaos({
        platform: {
          apiPort: Number(new URL(platform.urls.api).port),
          mtlsPort: Number(new URL(platform.urls.mtls).port),
          faults: platform.faults,
          ledger: () => platform.payments.ledger(),
          wallets: {
            pay: (id) => void platform.payments.wallet.pay(id),
            // The strict profile pays in the QR's last second by amount (ending 61: voided by a cancel; 62: kept).
            ...(strict
              ? {
                  lateAmount: (amount: number, random: () => number) =>
                    Math.floor(amount / 100) * 100 + (random() < 0.5 ? 61 : 62),
                }
              : {}),
          },
        },
        certs: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
        dir,
        bin: join(root, 'dist', 'src', 'cli', 'bin.js'),
        sales,
        kills,
        seed,
        workers,
        scenarios: mode === 'online' ? FAULT_SCENARIOS : OFFLINE_SCENARIOS,
        ...(mode === 'offline' ? { operationShare: 0.1 } : {}),
        ...(diskFull ? { diskFull } : {}),
        ...(argv.includes('--keep') ? { keepDir: dir } : {}),
        ...(json ? {} : { onEvent: (line: string) => process.stderr.write(`${line}\n`) }),
      });
      const report = chaosReport(mode, result, Math.round((performance.now() - started) / 100) / 10);
      process.stdout.write(json ? `${JSON.stringify(report)}\n` : formatReport(report));
      if (failures(report) > 0) process.exitCode = 1;
    } finally {
      await platform.stop();
    }
  } finally {
    if (argv.includes('--keep')) process.stderr.write(`kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  chaosMain('online', process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  });
}
