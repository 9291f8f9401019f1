import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import type { TransactionView } from '../../src/payments/index.js';
import { testCerts } from '../helpers/certs.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { until } from '../helpers/wait.js';

/**
 * The demo's offline sale as the README tells it (docs/demo-platform.md, "Demo platform",
 * control routes): `PUT /sim/control/unreachable` makes the embedded demo platform refuse
 * connections for a while; a card sale with nothing scripted is approved offline by the
 * simulated reader and stored; when the platform listens again the uploader sends it, once.
 */
let running: TestAgent;
let control: Agent;

beforeAll(async () => {
  running = await startTestAgent({ flags: { platform: { connectTimeoutMs: 1_000, availabilityBackoffCapMs: 1_000 } } });
  running.agent.simulated!.reader.setDefaultCard({ delayMs: 20 });
  control = new Agent({ connect: { ca: readFileSync(testCerts().caCert) } });
});
afterAll(async () => {
  await running?.stop();
  await control?.close();
});

async function controlCall(
  method: 'PUT' | 'GET',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await request(`${running.agent.demoPlatform!.urls.api}${path}`, {
    method,
    dispatcher: control,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('an offline sale and its upload on the demo', () => {
  it('refuses a bad duration', async () => {
    expect((await controlCall('PUT', '/sim/control/unreachable', { seconds: 0 })).status).toBe(400);
    expect((await controlCall('PUT', '/sim/control/unreachable', {})).status).toBe(400);
  });

  it('platform unreachable: the card sale is approved offline and stored; back again: uploaded once and approved', async () => {
    const { agent } = running;
    expect((await controlCall('PUT', '/sim/control/unreachable', { seconds: 3 })).status).toBe(202);
    await until(
      'the listeners to close',
      async () => (await controlCall('GET', '/sim/control/profile').catch(() => ({ status: 0 }))).status,
      (status) => status === 0,
      { timeoutMs: 20_000, everyMs: 100 },
    );

    const sale = await agent.payments.startSale({ method: 'card', amount: 1_234, currency: 'EUR' });
    const stored: TransactionView = await sale.done;
    expect(stored).toMatchObject({ state: 'offline_stored', offline: true });
    expect(agent.demoPlatform!.payments.transaction(sale.clientTransactionId)).toBeUndefined();

    // It listens again by itself; the uploader finds it and sends the sale.
    await until(
      'the upload',
      () => agent.payments.get(sale.clientTransactionId),
      (view) => view.state === 'approved',
      { timeoutMs: 20_000, everyMs: 100 },
    );
    expect(agent.demoPlatform!.payments.netCharged(sale.clientTransactionId)).toBe(1_234);
    expect(agent.offline.api.levels().count).toBe(0);
  });
});
