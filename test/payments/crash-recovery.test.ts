import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { immediateCaptureStatus } from '../helpers/demo-platform.js';
import { until } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const childScript = join(root, 'dist/test/fixtures/crash-sale-child.js');

/** Newest modification time under the sources the child is built from. */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) newest = Math.max(newest, st.mtimeMs);
    }
  };
  // The whole of src and the test helpers the child imports (log-sink, wait).
  for (const dir of ['src', 'test/helpers']) walk(join(root, dir));
  return Math.max(newest, statSync(join(root, 'test/fixtures/crash-sale-child.ts')).mtimeMs);
}

const fixture = useDemoPlatform({
  // `npm test` builds first; a stale or missing child is rebuilt here (tsc emits even when
  // files elsewhere in the tree do not type-check).
  beforeStart: () => {
    if (!existsSync(childScript) || statSync(childScript).mtimeMs < newestSource()) {
      spawnSync('npx', ['tsc', '-p', '.'], { cwd: root, stdio: 'ignore' });
    }
  },
  startTimeoutMs: 180_000,
});
let t: Terminal | undefined;
const cleanups: Array<() => void> = [];

afterEach(async () => {
  // The terminal closes before its data directory goes (the fixture's own close is then a no-op).
  await t?.close();
  t = undefined;
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** Starts the child terminal, waits until its sales are on their way, kills it with SIGKILL. */
/**
 * Runs the child until its sales are in flight and kills it. With `untilRecorded`, it is
 * killed only once the platform recorded every sale (the platform is in this process): a
 * test about answers lost after the platform charged must not depend on how fast a loaded
 * machine gets the requests out.
 */
async function crashMidRequest(
  dataDir: string,
  sales: Array<{ amount: number; merchantId?: string }>,
  opts: { untilRecorded?: boolean } = {},
): Promise<string[]> {
  const certs = testCerts();
  const options = {
    apiUrl: fixture.demo.apiUrl,
    mtlsUrl: fixture.demo.mtlsUrl,
    certFile: certs.deviceCert,
    keyFile: certs.deviceKey,
    caFile: certs.caCert,
    dataDir,
    sales,
  };
  const child = spawn(process.execPath, [childScript, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const lines = createInterface({ input: child.stdout });
  const ids = await new Promise<string[]>((resolve, reject) => {
    lines.on('line', (line) => resolve((JSON.parse(line) as { inFlight: string[] }).inFlight));
    child.on('exit', (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
  });
  if (opts.untilRecorded === true) {
    const recorded = (id: string): boolean =>
      fixture.demo.platform.payments.ledger().some((l) => l.paymentClientTransactionId === id);
    await until(
      'the platform to record every sale (the ones it has not)',
      () => ids.filter((id) => !recorded(id)),
      (left) => left.length === 0,
      { timeoutMs: 20_000, everyMs: 10 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${stderr}`);
    });
  }
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return ids;
}

describe('restart after a crash mid-request', () => {
  it('a child killed with SIGKILL while its sales are open: the next start resolves each, the ledger shows each sale once or not at all', async () => {
    const { dir, cleanup } = tempDir('crash-');
    cleanups.push(cleanup);
    const dataDir = join(dir, 'data');
    // Requests stay open at the platform long enough to kill the terminal mid-request.
    fixture.demo.platform.faults.set('process', { latencyMs: 1_500 });
    const sales = [{ amount: 1_111 }, { amount: 2_222 }, { amount: 3_333, merchantId: 'm-1002' }];
    const ids = await crashMidRequest(dataDir, sales);
    expect(ids).toHaveLength(3);
    fixture.demo.platform.faults.clear();

    t = await fixture.startTerminal({ dataDir, config: { payments: { lookupGraceMs: 4_000 } } });
    for (const id of ids) expect(t.journal.get(id)?.state).toBe('in_flight');
    const summary = await t.service.recover();
    await t.service.idle();
    expect(summary.resolved + summary.reversing).toBe(3);
    // Past the platform's latency: every request it was going to record is recorded by now (time is
    // what is awaited: a request the platform drops leaves nothing to wait for).
    await new Promise((r) => setTimeout(r, 500));
    for (const [i, id] of ids.entries()) {
      const row = t.journal.get(id);
      const ledger = fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);
      const charges = ledger.filter((l) => l.kind === 'sale' || l.kind === 'authorization');
      expect(charges.length).toBeLessThanOrEqual(1);
      const net = ledger.reduce((sum, l) => sum + l.effect, 0);
      if (row?.state === 'approved') expect(net).toBe(sales[i]?.amount);
      else if (row?.state === 'reversed') expect(net).toBe(0);
      else {
        expect(row?.state).toBe('failed');
        expect(ledger).toEqual([]);
      }
      expect(row?.cardSecret).toBeUndefined();
    }
    expect(t.service.list().filter((v) => v.state === 'in_flight' || v.state === 'reversing')).toEqual([]);
  });

  it('killed while looking up sales whose answers were lost: recovery adopts them, each charged once', async () => {
    const { dir, cleanup } = tempDir('crash-');
    cleanups.push(cleanup);
    const dataDir = join(dir, 'data');
    // The platform records each sale but the answer is lost; the terminal's lookup hangs.
    fixture.demo.platform.faults.set('process', { drop: 'after' });
    fixture.demo.platform.faults.set('status', { latencyMs: 5_000 });
    const ids = await crashMidRequest(dataDir, [{ amount: 1_200 }, { amount: 2_400 }], { untilRecorded: true });
    fixture.demo.platform.faults.clear();

    t = await fixture.startTerminal({ dataDir });
    for (const id of ids) expect(t.journal.get(id)?.state).toBe('in_flight');
    await t.service.recover();
    await t.service.idle();
    for (const [i, id] of ids.entries()) {
      expect(t.journal.get(id)).toMatchObject({
        state: 'approved',
        platformStatus: immediateCaptureStatus(),
        cardSecret: undefined,
      });
      const ledger = fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === id);
      expect(ledger.map((l) => [l.kind, l.amount])).toEqual([['sale', [1_200, 2_400][i]]]);
    }
  });

  it('killed mid-request, and the lookup fails after the restart: the sales are reversed, nothing stays charged', async () => {
    const { dir, cleanup } = tempDir('crash-');
    cleanups.push(cleanup);
    const dataDir = join(dir, 'data');
    fixture.demo.platform.faults.set('process', { drop: 'after' });
    fixture.demo.platform.faults.set('status', { latencyMs: 5_000 });
    const [id] = await crashMidRequest(dataDir, [{ amount: 7_700 }], { untilRecorded: true });
    fixture.demo.platform.faults.clear();
    fixture.demo.platform.faults.set('status', { status: 503, times: 2 });

    t = await fixture.startTerminal({ dataDir });
    const summary = await t.service.recover();
    expect(summary.reversing).toBe(1);
    await t.service.idle();
    // m-1001 captures at once: the refused reversal became a full refund.
    expect(t.journal.get(id ?? '')).toMatchObject({ state: 'reversed', refundedAmount: 7_700 });
    expect(fixture.demo.platform.payments.netCharged(id ?? '')).toBe(0);
  });
});
