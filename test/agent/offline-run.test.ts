import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import type { DemoPlatform } from '../../src/sim/platform/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { reviveDemoPlatform } from '../helpers/demo-platform.js';

/**
 * The whole agent with its offline queue: the platform goes away, a chip card the reader
 * approves offline is stored, the platform comes back on the same ports, and the upload
 * puts the sale at the platform exactly once.
 */
let running: TestAgent;
let agent: RunningAgent;
let revived: DemoPlatform | undefined;

beforeAll(async () => {
  running = await startTestAgent({ flags: { platform: { connectTimeoutMs: 1_000 } } });
  agent = running.agent;
});

afterAll(async () => {
  await running?.stop();
  await revived?.stop();
});

describe('offline card sales through the whole agent', () => {
  it('stores an offline-approved chip sale while the platform is down and uploads it once when it is back', async () => {
    const original = agent.demoPlatform!;
    await original.stop();

    agent.simulated!.reader.nextCard({ entryMode: 'ContactChip', result: 'offlineApproved', delayMs: 20 });
    const sale = await agent.payments.startSale({ method: 'card', amount: 1999, currency: 'EUR' });
    const stored = await sale.done;
    expect(stored.state).toBe('offline_stored');
    expect(stored.offline).toBe(true);
    expect(agent.offline.get(sale.clientTransactionId)?.state).toBe('queued');
    expect(agent.offline.api.levels().count).toBe(1);

    // The same platform comes back where it was (its tokens are signed with the seed's key).
    revived = await reviveDemoPlatform(original);
    const report = await agent.offline.uploader.flush();
    expect(report).toMatchObject({ uploaded: 1 });
    expect(revived.payments.netCharged(sale.clientTransactionId)).toBe(1999);

    const view = await agent.payments.get(sale.clientTransactionId);
    expect(view.state).toBe('approved');
    expect(agent.offline.api.levels().count).toBe(0);

    // A second flush sends nothing again.
    await agent.offline.uploader.flush();
    expect(
      revived.payments
        .ledger()
        .filter((e) => e.clientTransactionId === sale.clientTransactionId && e.kind !== 'authorization'),
    ).toHaveLength(1);
  });
});
