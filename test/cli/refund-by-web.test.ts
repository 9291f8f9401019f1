import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * `terminal-agent refund-by-web ID [--amount A]` against a running agent and the demo
 * platform (docs/platform-contract.md, "Endpoints"): the platform picks cancel or refund.
 */
let t: TestAgent;
let agent: RunningAgent;
let flags: string[];
let cleanup: () => void;

async function cardSale(amount: string): Promise<string> {
  const r = await runCli([...flags, 'sale', amount, '--json', '--poll-ms', '100']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { transaction: { clientTransactionId: string } }).transaction.clientTransactionId;
}

interface Tx {
  clientTransactionId: string;
  serverTransactionId?: string;
  state: string;
}

/**
 * The operation once final: exit 0 with it approved, or exit 3 with it pending (the strict
 * profile answers refunds pending), then completed at the platform and read again through
 * `status --refresh` (README, "Exit codes").
 */
async function finalOf(r: CliRun): Promise<Tx & Record<string, unknown>> {
  expect([0, 3], r.stderr).toContain(r.code);
  let tx = (JSON.parse(r.stdout) as { transaction: Tx & Record<string, unknown> }).transaction;
  expect(tx.state).toBe(r.code === 3 ? 'pending' : 'approved');
  for (let i = 0; i < 5 && tx.state === 'pending'; i++) {
    agent.demoPlatform?.payments.complete(tx.serverTransactionId ?? tx.clientTransactionId);
    tx = (
      JSON.parse((await runCli([...flags, 'status', tx.clientTransactionId, '--refresh', '--json'])).stdout) as {
        transaction: Tx & Record<string, unknown>;
      }
    ).transaction;
  }
  return tx;
}

beforeAll(async () => {
  const data = tempDir('terminal-agent-cli-byweb-');
  cleanup = data.cleanup;
  // A short lookup grace: a lost answer's own-id lookup gives up on its 404 quickly.
  t = await startTestAgent({ flags: { dataDir: data.dir, payments: { lookupGraceMs: 1_000 } }, level: 'info' });
  agent = t.agent;
  flags = ['--data-dir', data.dir, '--api-port', new URL(agent.url).port];
});
afterAll(async () => {
  await t?.stop();
  cleanup?.();
});

describe('terminal-agent refund-by-web', () => {
  it('refunds part of a captured card sale, then the rest by default', async () => {
    const id = await cardSale('12.00');
    // Only the refundbyweb call may reach the platform: its refund and cancel calls are refused.
    agent.demoPlatform?.faults.set('refund', { status: 409 });
    agent.demoPlatform?.faults.set('cancel', { status: 409 });
    const part = await runCli([...flags, 'refund-by-web', id, '--amount', '2.00 EUR', '--json']);
    expect(await finalOf(part)).toMatchObject({
      kind: 'refund',
      amount: 200,
      state: 'approved',
      relatedClientTransactionId: id,
    });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(1_000);

    const rest = await runCli([...flags, 'refund-by-web', id, '--json']);
    expect(await finalOf(rest)).toMatchObject({ kind: 'refund', amountText: '10.00 EUR', state: 'approved' });
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(0);
    agent.demoPlatform?.faults.clear();
  });

  it('refuses another currency before asking the agent, and names an unknown transaction', async () => {
    const id = await cardSale('3.00');
    const usd = await runCli([...flags, 'refund-by-web', id, '--amount', '1.00 USD']);
    expect(usd.code).toBe(1);
    expect(usd.stderr).toMatch(/is in EUR, not USD \[AMOUNT_INVALID\]/);
    const unknown = await runCli([...flags, 'refund-by-web', 'T-no-such-sale']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/T-no-such-sale.*\[PAYMENT_NOT_FOUND\]/);
    expect(agent.demoPlatform?.payments.netCharged(id)).toBe(300);
  });

  it("--merchant: another merchant's web order is looked up and given back with that merchant's token; an unknown merchant is refused", async () => {
    const order = agent.demoPlatform?.payments.webOrder({
      amount: { amount: 2_200, currency: 'EUR' },
      merchantId: 'm-1002',
    });
    const id = order?.clientTransactionId as string;
    const without = await runCli([...flags, 'refund-by-web', id]);
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/\[PAYMENT_NOT_FOUND\]/);
    const unknown = await runCli([...flags, 'refund-by-web', id, '--merchant', 'no-such-merchant']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no-such-merchant is not one of this terminal's merchants.*\[AUTH_NO_MERCHANT\]/);
    // The amount typed is read in the order's currency, found with the same merchant's token.
    const r = await runCli([...flags, 'refund-by-web', id, '--amount', '22.00', '--merchant', 'Demo Books', '--json']);
    expect(await finalOf(r)).toMatchObject({
      kind: 'refund',
      amount: 2_200,
      state: 'approved',
      relatedClientTransactionId: id,
    });
    expect(agent.demoPlatform?.payments.netCharged(id, 'm-1002')).toBe(0);
  });

  it('an answer lost, the id the agent invented never found: exit 3 "do not repeat", then the outcome; one refund at the platform', async () => {
    const id = await cardSale('15.00');
    agent.demoPlatform?.faults.set('refundbyweb', { drop: 'after', times: 1 });
    agent.demoPlatform?.faults.set('allowedoperations', { status: 503 });
    const r = await runCli([...flags, 'refund-by-web', id, '--amount', '5.00', '--json']);
    const strict = agent.demoPlatform?.context.profile.strict === true;
    const tx = (JSON.parse(r.stdout) as { transaction: Tx & Record<string, unknown> }).transaction;
    if (strict) {
      // Not "nothing was refunded; try again": the platform has not said so.
      expect(r.code, r.stderr).toBe(3);
      expect(tx).toMatchObject({ state: 'in_flight', amount: 500 });
      const plain = await runCli([...flags, 'status', tx.clientTransactionId]);
      expect(plain.stdout).toMatch(/do not repeat/);
    }
    agent.demoPlatform?.faults.clear('allowedoperations');
    let final = tx;
    for (let i = 0; i < 10 && (final.state === 'in_flight' || final.state === 'pending'); i++) {
      if (final.state === 'pending')
        agent.demoPlatform?.payments.complete(final.serverTransactionId ?? final.clientTransactionId);
      final = (
        JSON.parse((await runCli([...flags, 'status', tx.clientTransactionId, '--refresh', '--json'])).stdout) as {
          transaction: Tx & Record<string, unknown>;
        }
      ).transaction;
    }
    expect(final).toMatchObject({ state: 'approved', amount: 500 });
    await until(
      `${id} net 1000 on the platform`,
      () => agent.demoPlatform?.payments.netCharged(id),
      (net) => net === 1_000,
    );
    expect(
      agent.demoPlatform?.payments
        .ledger()
        .filter((e) => e.paymentClientTransactionId === id && e.kind === 'refund')
        .map((e) => e.amount),
    ).toEqual([500]);
    agent.demoPlatform?.faults.clear();
  });

  it('is listed in the help with its options', async () => {
    const r = await runCli(['refund-by-web', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/the platform picks cancel or refund; no approval code/);
    expect(r.stdout).toMatch(/--amount <amount>/);
    expect(r.stdout).toMatch(/--merchant <merchant>/);
    expect(r.stdout).not.toMatch(/approval-code/);
  });
});
