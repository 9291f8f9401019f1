import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import { call, untilTransaction } from '../helpers/http-client.js';
import type { LogSink } from '../helpers/log-sink.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * Request ids (docs/local-api.md, "Request ids"): the caller's X-Request-Id, or one the agent
 * makes, comes back on the answer, names every log line the request causes (with its route),
 * and is written on the journal row it made.
 */
let t: TestAgent;
let agent: RunningAgent;
let sink: LogSink;
const auth = (): Record<string, string> => ({ authorization: `Bearer ${agent.localToken}` });

beforeAll(async () => {
  t = await startTestAgent({ level: 'debug' });
  ({ agent, sink } = t);
});
afterAll(async () => {
  await t?.stop();
});

describe('request ids', () => {
  it("the caller's id comes back, names the sale's log lines with the route, and is written on the sale's row", async () => {
    agent.simulated!.reader.nextCard({ delayMs: 20 });
    const r = await call(agent.url, 'POST', '/api/v1/sales', {
      headers: { ...auth(), 'x-request-id': 'till-7.0042' },
      body: { method: 'card', amount: '2.30', currency: 'EUR' },
    });
    expect(r.status).toBe(202);
    expect(r.headers['x-request-id']).toBe('till-7.0042');
    const id = r.json.transaction.clientTransactionId as string;
    const row = await untilTransaction(agent.url, auth(), id, 'approved', { everyMs: 25 });
    expect(row).toMatchObject({ state: 'approved', requestId: 'till-7.0042' });
    const lines = sink.records().filter((l) => l.requestId === 'till-7.0042');
    // The platform calls the sale made after its 202 are its lines too.
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((l) => l.route === 'POST /api/v1/sales')).toBe(true);
    expect(lines.some((l) => l.module !== 'local-api')).toBe(true);
  });

  it('a request without a usable id gets a new one on its answer and its lines; lines outside requests carry none', async () => {
    const plain = await call(agent.url, 'GET', '/api/v1/no-such-thing', { headers: auth() });
    const made = plain.headers['x-request-id'];
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(sink.records().some((l) => l.requestId === made && l.level === 20)).toBe(true);
    const spaced = await call(agent.url, 'GET', '/healthz', { headers: { 'x-request-id': 'has spaces in it' } });
    expect(spaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await call(agent.url, 'GET', '/healthz', { headers: { 'x-request-id': 'x'.repeat(65) } });
    expect(tooLong.headers['x-request-id']).not.toBe('x'.repeat(65));
    expect(
      sink
        .records()
        .filter((l) => l.msg === 'local API and counter page listening')
        .every((l) => l.requestId === undefined),
    ).toBe(true);
  });
});
