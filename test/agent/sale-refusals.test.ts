import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { RunningAgent } from '../../src/agent.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * The whole agent refuses a sale it cannot make before the reader is asked
 * (docs/architecture.md, "Invariants", 6): an unknown merchant (the auth service's list),
 * an amount above payments.maxSaleAmount or beyond 2^53 - 1 minor units; nothing is journaled.
 */
let running: TestAgent;
let agent: RunningAgent;

beforeAll(async () => {
  running = await startTestAgent();
  ({ agent } = running);
  await agent.settled;
});

afterAll(async () => {
  await running?.stop();
});

async function api(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(`${agent.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${agent.localToken}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

describe('sales refused before the card is read', () => {
  it('an unknown merchant: 400 AUTH_NO_MERCHANT, nothing journaled', async () => {
    const r = await api('POST', '/api/v1/sales', {
      method: 'card',
      amount: '1.00',
      currency: 'EUR',
      merchantId: 'm-nobody',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(JSON.stringify(r.json)).toMatch(/AUTH_NO_MERCHANT/);
    expect(JSON.stringify(r.json)).toMatch(/m-nobody is not one of this terminal's merchants/);
    expect(agent.payments.list()).toEqual([]);
  });

  it('above the per-sale maximum (default 100000.00) or beyond 2^53 - 1 minor units: 400 naming the limit, nothing journaled', async () => {
    const over = await api('POST', '/api/v1/sales', { method: 'card', amount: '100000.01', currency: 'EUR' });
    expect(over.status).toBe(400);
    expect(JSON.stringify(over.json)).toMatch(/above the per-sale maximum of 100000\.00 EUR/);
    const max = await api('POST', '/api/v1/sales', { method: 'card', amount: '90071992547409.91', currency: 'EUR' });
    expect(max.status).toBe(400);
    expect(JSON.stringify(max.json)).toMatch(/per-sale maximum/);
    const beyond = await api('POST', '/api/v1/sales', { method: 'card', amount: '90071992547409.92', currency: 'EUR' });
    expect(beyond.status).toBe(400);
    expect(JSON.stringify(beyond.json)).toMatch(/too large/);
    expect(agent.payments.list()).toEqual([]);
  });

  it('/api/v1/status carries the journal and free-space checks (the page and the CLI show them)', async () => {
    const r = await api('GET', '/api/v1/status');
    expect(r.json.checks).toMatchObject({ journal: { ok: true, detail: 'journal writable' }, disk: { ok: true } });
  });
});
