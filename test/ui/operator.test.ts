import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApiClient } from '../../src/ui/client/local-api-client.js';
import { call } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { DEMO_STAFF, signInCookie } from './staff.js';
import { until } from '../helpers/wait.js';

/**
 * Every journal row records who made it (docs/journal.md, "Journal"): the clerk signed
 * in on the counter page (by the demo platform's password grant), `cli` for the CLI's
 * client, `local-api` for another program with the token. The list shows it.
 */
describe('operator of journal rows through the local API', () => {
  let t: TestAgent;
  beforeAll(async () => {
    // Wallet sales: paid only when the test says so, so nothing but the test acts.
    t = await startTestAgent({ flags: { sim: { walletPayDelayMs: 0 } } });
  }, 60_000);
  afterAll(() => t?.stop());

  /** Aborts a sale once its QR is out (an abort before that is refused as busy). */
  async function abort(id: string, headers: Record<string, string>): Promise<void> {
    await until(
      `sale ${id} aborted`,
      async () => (await call(t.agent.url, 'POST', `/api/v1/sales/${id}/abort`, { headers, body: {} })).status,
      (status) => status === 200,
      { everyMs: 50 },
    );
  }

  const sale = { method: 'walletA', scenario: 'ConsumerScan', amount: '3.00' };

  it('records the clerk, cli and local-api, and lists them', async () => {
    const { url, localToken } = t.agent;
    const cookie = await signInCookie(url, DEMO_STAFF);
    // One wallet sale at a time on the display: each caller aborts its own before the next.
    const bearer = { authorization: `Bearer ${localToken}` };
    const byClerk = await call(url, 'POST', '/api/v1/sales', { headers: { cookie }, body: sale });
    expect(byClerk.status).toBe(202);
    await abort(byClerk.json.transaction.clientTransactionId, { cookie });
    const byProgram = await call(url, 'POST', '/api/v1/sales', { headers: bearer, body: sale });
    expect(byProgram.status).toBe(202);
    await abort(byProgram.json.transaction.clientTransactionId, bearer);
    const cli = new LocalApiClient(url, localToken);
    const byCli = await cli.startSale({ method: 'walletA', scenario: 'ConsumerScan', amount: '3.00' });
    await cli.abortSale(byCli.clientTransactionId);

    const journal = (id: string) =>
      t.agent.payments.list({ limit: 50 }).find((v) => v.clientTransactionId === id)?.operator;
    expect(journal(byClerk.json.transaction.clientTransactionId)).toBe('staff1');
    expect(journal(byProgram.json.transaction.clientTransactionId)).toBe('local-api');
    expect(journal(byCli.clientTransactionId)).toBe('cli');

    const list = await call(url, 'GET', '/api/v1/transactions', { headers: { cookie } });
    const operators = new Map(
      (list.json.transactions as Array<{ clientTransactionId: string; operator?: string }>).map((x) => [
        x.clientTransactionId,
        x.operator,
      ]),
    );
    expect(operators.get(byClerk.json.transaction.clientTransactionId)).toBe('staff1');
    expect(operators.get(byCli.clientTransactionId)).toBe('cli');
  });
});
