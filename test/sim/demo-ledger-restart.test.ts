import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import { loadConfig } from '../../src/config/load.js';
import type { TransactionView } from '../../src/payments/index.js';
import { DEMO_LEDGER_FILE } from '../../src/sim/index.js';
import { testCerts } from '../helpers/certs.js';
import { testPlatformTimeZone, testSimProfile } from '../helpers/demo-platform.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * The demo as `npm start` runs it, stopped and started again on the same data directory:
 * the embedded demo platform reads its ledger file back, so a sale of the first run is
 * refunded in the second (docs/demo-platform.md, "Demo platform", ledger file).
 */
const tmp = tempDir('demo-restart-');
afterAll(() => tmp.cleanup());

async function startDemoAgent(): Promise<RunningAgent> {
  const certs = testCerts();
  const { config } = loadConfig({
    cwd: process.cwd(),
    env: {},
    flags: {
      dataDir: tmp.dir,
      identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
      api: { port: 0 },
      sim: { apiPort: 0, mtlsPort: 0, profile: testSimProfile() },
      platform: { timeZone: testPlatformTimeZone() },
    },
  });
  const agent = await startAgent({ config, log: testLogger('info').log });
  await agent.settled;
  return agent;
}

async function post(
  agent: RunningAgent,
  path: string,
  body: unknown,
): Promise<{ status: number; json: { transaction?: TransactionView } }> {
  const res = await request(`${agent.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agent.localToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as { transaction?: TransactionView } };
}

async function settled(agent: RunningAgent, id: string): Promise<TransactionView> {
  return until(
    `${id} settled`,
    () => agent.payments.get(id),
    (view) => !['created', 'awaiting_customer', 'in_flight', 'pending'].includes(view.state),
  );
}

describe('the demo ledger across a restart', () => {
  it('start, sell (card with PIN), stop, start, refund: approved, and the platform knows both', async () => {
    const first = await startDemoAgent();
    let saleId: string;
    try {
      first.simulated!.reader.nextCard({ delayMs: 20, onlinePin: true, entryMode: 'ContactChip' });
      const sale = await post(first, '/api/v1/sales', { method: 'card', amount: '12.34' });
      expect(sale.status).toBe(202);
      saleId = sale.json.transaction!.clientTransactionId;
      expect((await settled(first, saleId)).state).toBe('approved');
    } finally {
      await first.stop();
    }
    const text = readFileSync(join(tmp.dir, DEMO_LEDGER_FILE), 'utf8');
    expect(text).toContain(saleId);
    // Masked PAN and scheme only: no encrypted card data, no PIN block, not even their names.
    expect(text).not.toMatch(/encryptedData|pinblock/i);

    const second = await startDemoAgent();
    try {
      const refund = await post(second, `/api/v1/transactions/${saleId}/refund`, { amount: '2.34' });
      expect(refund.status, JSON.stringify(refund.json)).toBe(200);
      expect((await settled(second, refund.json.transaction!.clientTransactionId)).state).toBe('approved');
      expect(second.demoPlatform!.payments.netCharged(saleId)).toBe(1_000);
    } finally {
      await second.stop();
    }
  });
});
