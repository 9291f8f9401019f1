import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { RunningAgent } from '../../src/agent.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/** GET /api/v1/transactions page by page (docs/local-api.md, "Paging"), on the whole agent's journal. */
let running: TestAgent;
let agent: RunningAgent;

beforeAll(async () => {
  running = await startTestAgent({ level: 'info' });
  agent = running.agent;
  for (let i = 0; i < 5; i++) {
    agent.simulated!.reader.nextCard({ entryMode: 'ContactlessChip', delayMs: 0 });
    const sale = await agent.payments.startSale({ method: 'card', amount: 100 + i, currency: 'EUR' });
    await sale.done;
  }
});

afterAll(async () => {
  await running?.stop();
});

async function list(query: string): Promise<{
  status: number;
  json: { transactions?: Array<{ clientTransactionId: string }>; next?: string; error?: { message: string } };
}> {
  const res = await request(`${agent.url}/api/v1/transactions?${query}`, {
    headers: { authorization: `Bearer ${agent.localToken}` },
  });
  return { status: res.statusCode, json: (await res.body.json()) as never };
}

describe('the transaction list, page by page', () => {
  it('names the next page while rows remain and lists every sale once, newest first', async () => {
    const all = (await list('limit=100')).json;
    expect(all.next).toBeUndefined();
    const expected = (all.transactions ?? []).map((t) => t.clientTransactionId);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await list(`limit=2${after !== undefined ? `&after=${after}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.json.transactions ?? []).map((t) => t.clientTransactionId));
      after = page.json.next;
      if (after === undefined) break;
      expect(page.json.transactions).toHaveLength(2);
    }
    expect(seen).toEqual(expected);
  });

  it('refuses a page after an id the journal does not know, saying what to pass', async () => {
    const r = await list('after=no-such-id');
    expect(r.status).toBe(400);
    expect(r.json.error?.message).toMatch(/last id of the page before/);
  });
});
