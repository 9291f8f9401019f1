import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { readFileSync } from 'node:fs';
import { runCli } from '../helpers/cli.js';

/** The package's version, which /api/v1/status reports (README, "Command line"). */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const run = runCli;

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('payment CLI commands against a running local API', () => {
  let s: Started;
  let flags: string[];
  beforeAll(async () => {
    s = await startApi();
    flags = ['--data-dir', s.dataDir, '--api-port', new URL(s.url).port];
  });
  afterAll(async () => {
    await s.close();
  });
  afterEach(() => {
    s.payments.finalState = 'approved';
    s.payments.finishAfterGets = 0;
    s.payments.operationState = 'approved';
  });

  it('sale takes "12.34 EUR" as typed, waits for the final state and prints it', async () => {
    s.payments.finishAfterGets = 3;
    const r = await run([...flags, 'sale', '12.34', 'EUR', '--poll-ms', '100']);
    expect(r.code).toBe(0);
    expect(s.payments.calls.filter((c) => c.op === 'startSale').at(-1)?.arg).toEqual({
      method: 'card',
      amount: 1234,
      currency: 'EUR',
    });
    expect(r.stdout).toMatch(/^sale T-\d+: approved \(platform: Accepted\)/);
    expect(r.stdout).toMatch(/amount +12\.34 EUR/);
    expect(r.stdout).toMatch(/476173\*{6}0010/);
    expect(r.stderr).toMatch(/waiting for the card|sent to the platform/);
  });

  it('sale uses the default currency and exits 2 when declined', async () => {
    s.payments.finishAfterGets = 2;
    s.payments.finalState = 'declined';
    const r = await run([...flags, 'sale', '7', '--poll-ms', '100']);
    expect(r.code).toBe(2);
    expect(s.payments.calls.filter((c) => c.op === 'startSale').at(-1)?.arg).toMatchObject({
      amount: 700,
      currency: 'EUR',
    });
    expect(r.stdout).toMatch(/declined/);
    expect(r.stdout).toMatch(/message +Declined by the issuer/);
  });

  it('sale --json prints only JSON on stdout', async () => {
    s.payments.finishAfterGets = 1;
    const r = await run([...flags, 'sale', '1000 JPY', '--method', 'walletA', '--json', '--poll-ms', '100']);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout) as {
      transaction: { amount: number; currency: string; scenario: string; state: string };
    };
    expect(parsed.transaction).toMatchObject({
      amount: 1000,
      currency: 'JPY',
      scenario: 'ConsumerScan',
      state: 'approved',
    });
    expect(r.stderr).toBe('');
  });

  it('sale --no-wait returns once started', async () => {
    const r = await run([...flags, 'sale', '2.50', '--no-wait']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/in_flight/);
  });

  it('sale refuses an amount a person mistyped before contacting the agent', async () => {
    const before = s.payments.calls.length;
    const r = await run([...flags, 'sale', '12,34']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/use a dot as the decimal separator.*\[AMOUNT_INVALID\]/);
    expect(s.payments.calls.length).toBe(before);
  });

  it('an error from the agent is shown with its code', async () => {
    const r = await run([...flags, 'sale', '1.00', '--method', 'card', '--wallet-id', 'X']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/walletId applies to wallet merchant-scan sales only.*\[API_BAD_REQUEST\]/);
  });

  it("cancel, refund and capture take amounts in the sale's currency", async () => {
    s.payments.view({ clientTransactionId: 'S-1', amount: 2000, currency: 'EUR' });
    const c = await run([...flags, 'cancel', 'S-1', '--amount', '5.00 EUR', '--reason', 'Functional']);
    expect(c.code).toBe(0);
    expect(s.payments.calls.filter((x) => x.op === 'cancel').at(-1)).toEqual({
      op: 'cancel',
      id: 'S-1',
      arg: { amount: 500, reason: 'Functional' },
    });
    expect(c.stdout).toMatch(/^cancel S-1-C: approved/);
    const wrong = await run([...flags, 'refund', 'S-1', '--amount', '5 USD']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/sale S-1 is in EUR, not USD/);
    const r = await run([...flags, 'refund', 'S-1', '--amount', '3', '--approval-code', 'AC1', '--json']);
    expect(JSON.parse(r.stdout).transaction).toMatchObject({ kind: 'refund', amount: 300 });
    expect(s.payments.calls.filter((x) => x.op === 'refund').at(-1)?.arg).toEqual({ amount: 300, approvalCode: 'AC1' });
    const cap = await run([...flags, 'capture', 'S-1']);
    expect(cap.code).toBe(0);
    expect(cap.stdout).toMatch(/^capture S-1-K: approved/);
    expect(cap.stdout).toMatch(/captured 20\.00 EUR/);
  });

  it('a refund or cancel the platform answers pending: shown pending, exit 3, and where to look next', async () => {
    s.payments.view({ clientTransactionId: 'S-9', amount: 1500, currency: 'EUR' });
    s.payments.operationState = 'pending';
    const r = await run([...flags, 'refund', 'S-9']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^refund S-9-R: pending \(platform: Pending\)/);
    expect(r.stdout).toMatch(
      /pending at the platform: the agent follows it until it is final; terminal-agent status S-9-R shows the outcome/,
    );
    const json = await run([...flags, 'cancel', 'S-9', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).transaction).toMatchObject({ kind: 'cancel', state: 'pending' });
    // The server id is passed through as given: the agent finds the sale by either id.
    await run([...flags, 'refund', 'srv-4711']);
    expect(s.payments.calls.filter((x) => x.op === 'refund').at(-1)).toMatchObject({ id: 'srv-4711' });
  });

  it('status of a refund or cancel exits as the operation stands: 3 while its result is to come, 2 once the platform reports it failed, 0 done', async () => {
    s.payments.view({ clientTransactionId: 'S-7', amount: 1200, currency: 'EUR' });
    s.payments.operationState = 'pending';
    const r = await run([...flags, 'refund', 'S-7']);
    expect(r.code).toBe(3);
    const pending = await run([...flags, 'status', 'S-7-R']);
    expect(pending.code).toBe(3);
    expect(pending.stdout).toMatch(/terminal-agent status S-7-R shows the outcome/);
    const failedMessage =
      'the platform reports the refund failed (Refund failed at the wallet provider): nothing was refunded; 12.00 EUR can be refunded again';
    s.payments.view({
      clientTransactionId: 'S-7-R',
      kind: 'refund',
      relatedClientTransactionId: 'S-7',
      amount: 1200,
      currency: 'EUR',
      state: 'failed',
      platformStatus: 'Accepted',
      message: failedMessage,
    });
    const failed = await run([...flags, 'status', 'S-7-R']);
    expect(failed.code).toBe(2);
    expect(failed.stdout).toMatch(/^refund S-7-R: failed \(platform: Accepted\)/);
    expect(failed.stdout).toContain(failedMessage);
    s.payments.view({
      clientTransactionId: 'S-7-C',
      kind: 'cancel',
      relatedClientTransactionId: 'S-7',
      amount: 1200,
      currency: 'EUR',
      state: 'approved',
    });
    expect((await run([...flags, 'status', 'S-7-C', '--json'])).code).toBe(0);
    // A sale's status stays a look, not a verdict: exit 0 whatever its state.
    s.payments.view({ clientTransactionId: 'S-8', amount: 100, currency: 'EUR', state: 'declined' });
    expect((await run([...flags, 'status', 'S-8'])).code).toBe(0);
  });

  it('capture --all and its argument rules', async () => {
    const all = await run([...flags, 'capture', '--all', '--merchant', 'm-1001']);
    expect(all.code).toBe(0);
    expect(s.payments.calls.at(-1)).toEqual({ op: 'captureAll', arg: 'm-1001' });
    const neither = await run([...flags, 'capture']);
    expect(neither.code).toBe(64);
    expect(neither.stderr).toMatch(/either a transaction id or --all/);
  });

  it('status shows the agent, or one transaction', async () => {
    s.bus.publish('device.status', { device: 'reader', state: 'connected', model: 'SIM-R1' });
    const agent = await run([...flags, 'status']);
    expect(agent.code).toBe(0);
    // The running agent's version (its package.json), from /api/v1/status.
    expect(agent.stdout).toMatch(new RegExp(`^agent ready \\(${VERSION.replace(/\./g, '\\.')}, `));
    expect(
      (JSON.parse((await run([...flags, 'status', '--json'])).stdout) as { agent: { version: string } }).agent.version,
    ).toBe(VERSION);
    expect(agent.stdout).toMatch(/reader +connected \(SIM-R1\)/);
    expect(agent.stdout).toMatch(/offline +2\/500 queued \(40\.00 EUR\)/);
    s.payments.view({ clientTransactionId: 'S-2' });
    const one = await run([...flags, 'status', 'S-2', '--refresh', '--json']);
    expect(JSON.parse(one.stdout).transaction.clientTransactionId).toBe('S-2');
    expect(s.payments.calls.at(-1)).toEqual({ op: 'get', id: 'S-2', arg: { refresh: true } });
    const missing = await run([...flags, 'status', 'NOPE']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no transaction NOPE \[PAYMENT_NOT_FOUND\]/);
  });

  it('transactions lists one line each', async () => {
    const r = await run([...flags, 'transactions', '--date', 'all', '--limit', '3']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
    // One row more than asked for tells the route whether a next page follows.
    expect(s.payments.calls.at(-1)).toEqual({ op: 'list', arg: { limit: 4 } });
    await run([...flags, 'transactions', '--date', '2025-03-01']);
    expect(s.payments.calls.at(-1)).toEqual({ op: 'list', arg: { date: '2025-03-01', limit: 101 } });
  });

  it('sale --reference sends the caller reference and shows it; transactions --reference finds the sale on any day', async () => {
    const r = await run([...flags, 'sale', '3.00', '--no-wait', '--reference', 'Till 2 #0815']);
    expect(r.code).toBe(0);
    expect(s.payments.calls.filter((c) => c.op === 'startSale').at(-1)?.arg).toMatchObject({
      reference: 'Till 2 #0815',
    });
    expect(r.stdout).toMatch(/reference +Till 2 #0815/);
    const id = /sale (T-\d+)/.exec(r.stdout)?.[1];
    const found = await run([...flags, 'transactions', '--reference', 'Till 2 #0815']);
    expect(found.code).toBe(0);
    expect(s.payments.calls.at(-1)).toEqual({ op: 'list', arg: { reference: 'Till 2 #0815', limit: 101 } });
    expect(found.stdout.trim().split('\n')).toHaveLength(1);
    expect(found.stdout).toContain(id ?? 'no id');
    expect(found.stdout).toContain('ref "Till 2 #0815"');
    const none = await run([...flags, 'transactions', '--reference', 'nothing-like-it', '--date', '2025-03-01']);
    expect(none.stdout).toMatch(/no transactions with reference "nothing-like-it" on 2025-03-01/);
    const bad = await run([...flags, 'sale', '3.00', '--no-wait', '--reference', 'x'.repeat(65)]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/reference must be at most 64 characters/);
  });
});

describe('payment CLI commands without a running agent', () => {
  it('says the agent is not running when nothing answers', async () => {
    const s = await startApi();
    const dataDir = s.dataDir;
    await s.api.stop();
    const port = await closedPort();
    const r = await run(['--data-dir', dataDir, '--api-port', String(port), 'transactions']);
    await s.close();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the agent is not running: nothing answers at http:\/\/127\.0\.0\.1:\d+.*\[API_UNAVAILABLE\]/,
    );
  });

  it('says where the token is missing when the agent never ran with this data directory', async () => {
    const tmp = tempDir();
    try {
      const r = await run(['--data-dir', tmp.dir, '--api-port', '1', 'status']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no local API token at .*local-api\.token: the agent has not been started/);
    } finally {
      tmp.cleanup();
    }
  });
});
