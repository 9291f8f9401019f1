import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { TransactionView } from '../../src/payments/index.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { until } from '../helpers/wait.js';

/**
 * The demo as `npm start` runs it (embedded demo platform, simulated reader with nothing
 * scripted, local API): a keyed (manual) sale and a MOTO sale are approved, because the
 * simulated reader reads the card the way the startPayment asks (docs/serial-protocol.md,
 * "Card reader", entryModes `["Keyed"]`).
 */
let running: TestAgent;

beforeAll(async () => {
  running = await startTestAgent();
  // The demo's reader as it is, only faster than a person.
  running.agent.simulated!.reader.setDefaultCard({ delayMs: 20 });
});
afterAll(async () => {
  await running?.stop();
});

async function sale(body: unknown): Promise<TransactionView> {
  const { agent } = running;
  const res = await request(`${agent.url}/api/v1/sales`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agent.localToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.body.json()) as { transaction: { clientTransactionId: string } };
  expect(res.statusCode).toBe(202);
  const id = json.transaction.clientTransactionId;
  return until(
    `sale ${id} settled`,
    () => agent.payments.get(id),
    (view) => !['created', 'awaiting_customer', 'in_flight'].includes(view.state),
    { everyMs: 25 },
  );
}

describe('keyed and MOTO sales on the demo', () => {
  it('approves a keyed (manual entry) sale', async () => {
    const view = await sale({ method: 'manual', amount: '7.10' });
    expect(view).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    expect(running.agent.demoPlatform!.payments.netCharged(view.clientTransactionId)).toBe(710);
  });

  it("approves a MOTO sale with the customer's e-mail, and one with address verification", async () => {
    const mail = await sale({ method: 'moto', amount: '8.20', moto: { email: 'buyer@example.com' } });
    expect(mail).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    const avs = await sale({
      method: 'moto',
      amount: '9.30',
      moto: { orderChannel: 'Telephone', zipCode: '10115', houseNumber: '12' },
    });
    expect(avs).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    expect(running.agent.demoPlatform!.payments.netCharged(avs.clientTransactionId)).toBe(930);
  });

  it('a card sale on the same reader is still read contactless', async () => {
    expect(await sale({ method: 'card', amount: '3.00' })).toMatchObject({
      state: 'approved',
      entryMode: 'ContactlessChip',
    });
  });
});
