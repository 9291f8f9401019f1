import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRegister } from '../../examples/register.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { lossyProxy } from '../helpers/lossy-proxy.js';
import { until } from '../helpers/wait.js';

describe('the example register (examples/register.ts) against the agent with the embedded demo', () => {
  let running: TestAgent;
  beforeAll(async () => {
    running = await startTestAgent();
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('starts a sale with a key and reference, loses the answer, repeats with the same key and gets exactly one sale', async () => {
    const { agent } = running;
    // The card is presented a little later, so the sale is still running when the repeat arrives.
    agent.simulated!.reader.nextCard({ entryMode: 'ContactChip', delayMs: 400 });
    const proxy = lossyProxy(new URL(agent.url), { drops: 1 });
    const url = await proxy.start();
    const lines: string[] = [];
    try {
      const sale = await runRegister({
        url,
        token: agent.localToken,
        amount: '23.45',
        currency: 'EUR',
        reference: 'Till 7 / 4711',
        log: (l) => lines.push(l),
        timeoutMs: 30_000,
      });
      expect(sale.state).toBe('approved');
      expect(sale.reference).toBe('Till 7 / 4711');
      expect(sale.amountText).toMatch(/23[.,]45/);
      // The receipt for the register's printer, 32 columns.
      expect(sale.receipt).toContain('APPROVED');
      expect(sale.receipt!.split('\n').every((l) => l.length <= 32)).toBe(true);
    } finally {
      await proxy.close();
    }
    // The answer really was lost once and the request really was sent twice.
    expect(proxy.stats.droppedSales).toBe(1);
    expect(proxy.stats.saleRequests).toBe(2);
    expect(proxy.stats.droppedEvents).toBe(1);
    expect(lines.join('\n')).toMatch(/no answer .*same Idempotency-Key/);
    expect(lines.join('\n')).toMatch(/events: resumed after event \d+/);
    // Exactly one sale in the journal, found by its reference too.
    const sales = agent.payments.list().filter((t) => t.kind === 'sale');
    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({ reference: 'Till 7 / 4711', amount: 2345, state: 'approved' });
    const byReference = await fetch(
      `${agent.url}/api/v1/transactions?reference=${encodeURIComponent('Till 7 / 4711')}`,
      { headers: { authorization: `Bearer ${agent.localToken}` } },
    );
    expect(((await byReference.json()) as { transactions: unknown[] }).transactions).toHaveLength(1);
  });
});

describe('Idempotency-Key across a restart of the whole agent', () => {
  it('a repeat after the agent restarted on the same data directory answers the same sale, final, and sells nothing again', async () => {
    const data = tempDir('terminal-agent-restart-');
    const flags = { dataDir: data.dir };
    const sale = { method: 'card', amount: '8.80', currency: 'EUR', reference: 'Till 9 / 1' };
    const send = (a: TestAgent) =>
      fetch(`${a.agent.url}/api/v1/sales`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a.agent.localToken}`,
          'content-type': 'application/json',
          'idempotency-key': 'restart-2f1c',
        },
        body: JSON.stringify(sale),
      });
    let first: TestAgent | undefined;
    let second: TestAgent | undefined;
    try {
      first = await startTestAgent({ flags });
      first.agent.simulated!.reader.nextCard({ entryMode: 'ContactChip', delayMs: 20 });
      const r1 = await send(first);
      expect(r1.status).toBe(202);
      const id = ((await r1.json()) as { transaction: { clientTransactionId: string } }).transaction
        .clientTransactionId;
      const payments = first.agent.payments;
      await until(
        `${id} approved`,
        () => payments.get(id),
        (view) => view.state === 'approved',
        { everyMs: 25 },
      );
      await first.stop();
      first = undefined;

      second = await startTestAgent({ flags });
      const r2 = await send(second);
      expect(r2.status).toBe(202);
      expect(r2.headers.get('idempotent-replayed')).toBe('true');
      const again = (
        (await r2.json()) as { transaction: { clientTransactionId: string; state: string; reference: string } }
      ).transaction;
      expect(again).toMatchObject({ clientTransactionId: id, state: 'approved', reference: 'Till 9 / 1' });
      expect(second.agent.payments.list().filter((t) => t.kind === 'sale')).toHaveLength(1);
    } finally {
      await first?.stop();
      await second?.stop();
      data.cleanup();
    }
  });
});
