import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { RunningAgent } from '../../src/agent.js';
import type { TransactionView } from '../../src/payments/index.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import type { LogSink } from '../helpers/log-sink.js';
import { until } from '../helpers/wait.js';

/**
 * The whole agent as `npm start` runs it (embedded demo platform, simulated peripherals,
 * local API), driven through a few sales; then every log line of the run is searched for
 * secrets (docs/architecture.md, "Invariants", 4: no secret in logs or output).
 */
let running: TestAgent;
let agent: RunningAgent;
let sink: LogSink;

beforeAll(async () => {
  running = await startTestAgent({ level: 'trace', flags: { sim: { walletPayDelayMs: 300 } } });
  ({ agent, sink } = running);
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

// `pending`: a refund or cancel the platform completes later (strict profile), followed by the agent's relay.
const WAITING = new Set(['created', 'awaiting_customer', 'in_flight', 'pending']);

async function waitSettled(id: string): Promise<TransactionView> {
  return until(
    `transaction ${id} settled`,
    () => agent.payments.get(id),
    (view) => !WAITING.has(view.state),
    { everyMs: 50 },
  );
}

describe('a full run of the agent on the demo default', () => {
  it('holds a device token for the seeded terminal and reports ready', async () => {
    expect(agent.auth.status().state).toBe('ready');
    expect(agent.identity.serialNumber).toBe('TA-0001');
    const ready = await request(`${agent.url}/readyz`);
    expect(ready.statusCode).toBe(200);
    await ready.body.dump();
    const devices = await api('GET', '/api/v1/devices');
    expect(devices.json).toMatchObject({
      devices: expect.arrayContaining([
        expect.objectContaining({ device: 'reader', state: 'connected', model: 'SIM-READER-1' }),
        expect.objectContaining({ device: 'display', state: 'connected' }),
        expect.objectContaining({ device: 'scanner', state: 'connected' }),
      ]),
    });
    expect(sink.text()).toMatch(/authenticated: terminal TA-0001 acts for Demo Coffee/);
  });

  it('takes a card sale with an online PIN, a walletA QR sale paid by the provider, a refund and a cancel', async () => {
    agent.simulated!.reader.nextCard({ onlinePin: true, entryMode: 'ContactChip', delayMs: 50 });
    const card = await api('POST', '/api/v1/sales', { method: 'card', amount: '12.34', currency: 'EUR' });
    expect(card.status).toBe(202);
    const cardId = (card.json.transaction as { clientTransactionId: string }).clientTransactionId;
    const finalCard = await waitSettled(cardId);
    expect(finalCard.state).toBe('approved');
    expect(finalCard.maskedPan).toMatch(/\*{6}/);

    const wallet = await agent.payments.startSale({
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 500,
      currency: 'EUR',
    });
    const walletView = await wallet.done;
    expect(walletView.state).toBe('approved');
    expect(walletView.platformStatus).toBe('Accepted');

    const refund = await api('POST', `/api/v1/transactions/${cardId}/refund`, { amount: '2.00' });
    expect(refund.status).toBe(200);
    expect(
      (await waitSettled((refund.json.transaction as { clientTransactionId: string }).clientTransactionId)).state,
    ).toBe('approved');

    const second = await agent.payments.startSale({
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 700,
      currency: 'EUR',
      merchantId: 'terminal-app-1002',
    });
    const secondView = await second.done;
    expect(secondView.state).toBe('approved');
    const cancelled = await api('POST', `/api/v1/transactions/${secondView.clientTransactionId}/cancel`, {
      reason: 'Functional',
      approvalCode: '4711',
    });
    expect(cancelled.status).toBe(200);
    expect(
      (await waitSettled((cancelled.json.transaction as { clientTransactionId: string }).clientTransactionId)).state,
    ).toBe('approved');

    const ledger = agent.demoPlatform!.payments;
    expect(ledger.netCharged(cardId)).toBe(1034);
    expect(ledger.netCharged(wallet.clientTransactionId)).toBe(500);
    expect(ledger.netCharged(secondView.clientTransactionId, 'm-1002')).toBe(0);
  });

  it('logged no secret, token, card data or PIN block anywhere in the run', async () => {
    const text = sink.text();
    expect(sink.lines.length).toBeGreaterThan(20);
    const seed = JSON.parse(readFileSync('config/demo-seed.json', 'utf8')) as {
      merchants: Array<{ clientSecret: string }>;
      users: Array<{ password: string }>;
      signingKeyHex: string;
    };
    for (const m of seed.merchants) expect(text).not.toContain(m.clientSecret);
    for (const u of seed.users) expect(text).not.toContain(u.password);
    expect(text).not.toContain(seed.signingKeyHex);
    expect(text).not.toContain(agent.localToken);
    const token = await agent.auth.tokenFor();
    expect(text).not.toContain(token);
    // Frames dumped at trace level, decoded: none may carry card data or a PIN block.
    const frames = sink
      .records()
      .map((r) => r.hex)
      .filter((h): h is string => typeof h === 'string')
      .map((h) => Buffer.from(h, 'hex').toString('latin1'));
    expect(frames.length).toBeGreaterThan(0);
    const everything = [text, ...frames].join('\n');
    expect(everything).not.toMatch(/encryptedData"\s*:\s*"[^"[]/);
    expect(everything).not.toMatch(/pinblock"\s*:\s*"[^"[]/);
    // No JWT of any kind, no long upper-case hex (how the reader encodes encryptedData and PIN blocks).
    expect(everything).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}\./);
    expect(everything).not.toMatch(/(?=[0-9A-F]*[A-F])[0-9A-F]{16,}/);
    expect(text).not.toContain('PRIVATE KEY');
  });
});
