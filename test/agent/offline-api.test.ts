import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { call } from '../helpers/http-client.js';

/**
 * The whole agent's local API over its real offline queue and merchants: with the
 * platform gone, a chip sale the reader approved offline is listed by GET /api/v1/offline,
 * and GET /api/v1/merchants names both of the terminal's merchants without their secrets.
 */
let running: TestAgent;
let agent: RunningAgent;

beforeAll(async () => {
  running = await startTestAgent({ level: 'info', flags: { platform: { connectTimeoutMs: 1_000 } } });
  agent = running.agent;
});

afterAll(async () => {
  await running?.stop();
});

describe("offline queue and merchants on the running agent's local API", () => {
  it('lists an offline-approved chip sale stored while the platform is down, and both merchants without secrets', async () => {
    const auth = { authorization: `Bearer ${agent.localToken}` };
    await agent.demoPlatform!.stop();

    agent.simulated!.reader.nextCard({ entryMode: 'ContactChip', result: 'offlineApproved', delayMs: 20 });
    const sale = await agent.payments.startSale({ method: 'card', amount: 1999, currency: 'EUR' });
    expect((await sale.done).state).toBe('offline_stored');

    const r = await call(agent.url, 'GET', '/api/v1/offline', { headers: auth });
    expect(r.status).toBe(200);
    expect(r.json.offline).toMatchObject({ enabled: true, count: 1, totals: { EUR: 1999 } });
    expect(r.json.items).toHaveLength(1);
    expect(r.json.items[0]).toMatchObject({
      clientTransactionId: sale.clientTransactionId,
      amount: 1999,
      currency: 'EUR',
      amountText: '19.99 EUR',
      attempts: expect.any(Number),
    });
    expect(['queued', 'uploading']).toContain(r.json.items[0].state);
    expect(r.json.items[0].maskedPan).toMatch(/^\d{6}\*+\d{4}$/);
    expect(r.text).not.toMatch(/encryptedData|ksn|pinblock|cardSecret/i);

    // Not needing attention: the agent refuses to queue it "again".
    const requeue = await call(agent.url, 'POST', `/api/v1/offline/${sale.clientTransactionId}/requeue`, {
      headers: auth,
    });
    expect(requeue.status).toBe(409);

    const m = await call(agent.url, 'GET', '/api/v1/merchants', { headers: auth });
    expect(m.status).toBe(200);
    expect(m.json.merchants.map((x: { merchantName: string }) => x.merchantName)).toEqual([
      'Demo Coffee',
      'Demo Books',
    ]);
    expect(m.json.merchants.filter((x: { default: boolean }) => x.default)).toHaveLength(1);
    // The default merchant's platform id is known from its token.
    expect(m.json.merchants.find((x: { default: boolean }) => x.default)).toMatchObject({
      merchantId: expect.stringMatching(/^m-100[12]$/),
    });
    expect(m.json.merchants.map((x: { clientId: string }) => x.clientId)).toEqual([
      'terminal-app-1001',
      'terminal-app-1002',
    ]);
    expect(m.text).not.toMatch(/clientSecret|demo-secret/);
  });
});
