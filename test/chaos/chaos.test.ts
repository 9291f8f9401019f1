import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChaosReport } from '../../scripts/chaos/online/run.js';
import { compareJournalWithLedger, type ChaosJournalRow, type ChaosLedgerEntry } from '../../scripts/chaos/online/compare.js';

/**
 * The chaos target "kill -9 at random points in mixed sales: 0 lost, 0 duplicated,
 * 0 unresolved" (README.md, "Quality targets"), run small: the compiled scripts/chaos/online/run.js with its child.
 */
const SCRIPT = resolve('dist/scripts/chaos/online/run.js');
const CHILD = resolve('dist/scripts/chaos/online/child.js');

/** The compiled scripts must not be older than what they are built from (else the test would prove old code). */
function staleSources(): string[] {
  const missing = [SCRIPT, CHILD].filter((f) => !existsSync(f));
  if (missing.length > 0) return missing.map((f) => `${f} is missing`);
  const built = Math.min(statSync(SCRIPT).mtimeMs, statSync(CHILD).mtimeMs);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
  const sources = [
    // The child's engine and client, and the demo platform the parent runs.
    ...['src/payments', 'src/platform', 'src/auth', 'src/events', 'src/identity', 'src/core', 'src/config', 'src/sim/platform'].flatMap(walk),
    ...walk('scripts/chaos'),
    ...walk('scripts/lib'),
  ];
  return sources.filter((f) => statSync(f).mtimeMs > built);
}

function runChaos(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4_000)));
    child.on('error', fail);
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('online chaos: SIGKILL at random points in mixed sales', () => {
  it('loses, duplicates and leaves unresolved nothing across kills at random points, and the journal agrees with the platform', async () => {
    expect(staleSources(), 'build first: npx tsc -p .').toEqual([]);
    const seed = process.env.CHAOS_SEED ?? '4242';
    const { code, stdout, stderr } = await runChaos(['--sales', '60', '--kills', '4', '--seed', seed, '--json']);
    const context = `seed ${seed} (CHAOS_SEED=${seed} repeats it); stderr: ${stderr.slice(-1_000)}`;
    const report = JSON.parse(stdout) as ChaosReport;
    expect(report.kills, context).toBe(4);
    expect(report.sales, context).toBe(60);
    expect(report.platform.salesCharged, context).toBeGreaterThan(0);
    expect(report.findings, context).toEqual({ lost: [], duplicated: [], unresolved: [], mismatched: [] });
    expect([report.lost, report.duplicated, report.unresolved, report.mismatched], context).toEqual([0, 0, 0, 0]);
    expect(code, context).toBe(0);
  }, 90_000);
});

describe('the chaos comparison', () => {
  const sale = (id: string, state: string, amount: number, extra: Partial<ChaosJournalRow> = {}): ChaosJournalRow => ({
    clientTransactionId: id,
    kind: 'sale',
    merchantId: 'm-1001',
    method: 'card',
    amount,
    state,
    relatedClientTransactionId: undefined,
    capturedAmount: 0,
    refundedAmount: 0,
    cancelledAmount: 0,
    ...extra,
  });
  const move = (kind: ChaosLedgerEntry['kind'], id: string, amount: number, effect: number, saleId = id): ChaosLedgerEntry => ({
    kind,
    merchantId: 'm-1001',
    clientTransactionId: id,
    paymentClientTransactionId: saleId,
    amount,
    effect,
  });

  it('agrees when each approved sale is charged once and refunds and failures match', () => {
    const rows = [
      sale('s1', 'approved', 1_000, { refundedAmount: 300 }),
      { ...sale('r1', 'approved', 300), kind: 'refund' as const, relatedClientTransactionId: 's1' },
      sale('s2', 'failed', 500),
      sale('s3', 'reversed', 700, { cancelledAmount: 700 }),
    ];
    const ledger = [move('sale', 's1', 1_000, 1_000), move('refund', 'r1', 300, -300, 's1'), move('sale', 's3', 700, 700), move('reversal', 'c3', 700, -700, 's3')];
    const c = compareJournalWithLedger(rows, ledger);
    expect([c.lost, c.duplicated, c.unresolved, c.mismatched]).toEqual([[], [], [], []]);
    expect(c.journal.byState).toEqual({ approved: 1, failed: 1, reversed: 1 });
  });

  it('counts a sale charged twice, an approved sale the platform never charged and rows left open', () => {
    const rows = [
      sale('twice', 'approved', 1_000),
      sale('lost', 'approved', 2_000),
      sale('open', 'in_flight', 300),
      sale('reversing', 'reversing', 400),
      { ...sale('r-lost', 'approved', 100), kind: 'refund' as const, relatedClientTransactionId: 'twice' },
    ];
    const ledger = [move('sale', 'twice', 1_000, 1_000), move('sale', 'twice', 1_000, 1_000)];
    const c = compareJournalWithLedger(rows, ledger);
    expect(c.duplicated.map((f) => f.clientTransactionId)).toEqual(['twice']);
    expect(c.lost.map((f) => f.clientTransactionId).sort()).toEqual(['lost', 'r-lost']);
    expect(c.unresolved.map((f) => f.clientTransactionId)).toEqual(['open', 'reversing']);
  });

  it('counts disagreements: charged but failed in the journal, a wrong net, money for a sale the journal does not know', () => {
    const rows = [sale('failed-but-charged', 'failed', 500), sale('short', 'approved', 1_000, { refundedAmount: 200 })];
    const ledger = [move('sale', 'failed-but-charged', 500, 500), move('sale', 'short', 1_000, 1_000), move('sale', 'stranger', 50, 50)];
    const c = compareJournalWithLedger(rows, ledger);
    expect(c.mismatched.map((f) => f.clientTransactionId).sort()).toEqual(['failed-but-charged', 'short', 'stranger']);
    expect([c.lost, c.duplicated, c.unresolved]).toEqual([[], [], []]);
  });
});
