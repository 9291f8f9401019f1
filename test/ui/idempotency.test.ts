import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { IdempotencyKeys, Journal } from '../../src/payments/index.js';
import { IDEMPOTENCY_RETENTION_MS } from '../../src/ui/index.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { tempDir } from '../helpers/temp-dir.js';
import { CLERK, FakeStaff, signInCookie } from './staff.js';

/**
 * Idempotency-Key on the local API's writes (docs/local-api.md, "Idempotency"), with the
 * keys in a real journal file: a repeat answers the first result and never runs twice.
 */
const open: Array<{ api?: Started; journal?: Journal; cleanup?: () => void }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) {
    await o.api?.close();
    o.journal?.close();
    o.cleanup?.();
  }
});

async function start(dataDir?: string): Promise<{ s: Started; journal: Journal; dataDir: string }> {
  const tmp = dataDir === undefined ? tempDir('terminal-agent-idem-') : undefined;
  const dir = dataDir ?? join(tmp?.dir ?? '', 'data');
  const journal = new Journal({ dataDir: dir });
  const s = await startApi({
    dataDir: dir,
    extra: {
      idempotency: new IdempotencyKeys(journal.db, { wall: () => Date.now() }, IDEMPOTENCY_RETENTION_MS),
      staff: new FakeStaff(),
    },
  });
  open.push({ api: s, journal, ...(tmp !== undefined ? { cleanup: tmp.cleanup } : {}) });
  return { s, journal, dataDir: dir };
}

const sale = { method: 'card', amount: '12.34', currency: 'EUR', reference: 'R-1001' };

function post(s: Started, path: string, body: object, key?: string, headers: Record<string, string> = s.auth) {
  return call(s.url, 'POST', path, {
    headers: { ...headers, ...(key !== undefined ? { 'idempotency-key': key } : {}) },
    body,
  });
}

const saleCalls = (s: Started) => s.payments.calls.filter((c) => c.op === 'startSale').length;

describe('Idempotency-Key', () => {
  it('a repeat with the same key and body answers the same sale in its current state, never a second sale', async () => {
    const { s } = await start();
    const first = await post(s, '/api/v1/sales', sale, 'key-1');
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const id = first.json.transaction.clientTransactionId as string;
    expect(first.json.transaction.state).toBe('in_flight');
    s.payments.view({ ...(s.payments.views.get(id) ?? { clientTransactionId: id }), state: 'approved' });
    // The same body spaced and ordered differently is the same request.
    const again = await call(s.url, 'POST', '/api/v1/sales', {
      headers: { ...s.auth, 'idempotency-key': 'key-1', 'content-type': 'application/json' },
      body: '{ "reference": "R-1001", "currency": "EUR", "amount": "12.34", "method": "card" }',
    });
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json.transaction.clientTransactionId).toBe(id);
    expect(again.json.transaction.state).toBe('approved');
    expect(saleCalls(s)).toBe(1);
    // Without a key (or with another one) it is a new sale.
    const other = await post(s, '/api/v1/sales', sale, 'key-2');
    expect(other.json.transaction.clientTransactionId).not.toBe(id);
    expect(saleCalls(s)).toBe(2);
  });

  it('the same key with another body or another path is refused with 409 saying what to do', async () => {
    const { s } = await start();
    await post(s, '/api/v1/sales', sale, 'key-1');
    const changed = await post(s, '/api/v1/sales', { ...sale, amount: '99.99' }, 'key-1');
    expect(changed.status).toBe(409);
    expect(changed.json.error.code).toBe('API_IDEMPOTENCY_CONFLICT');
    expect(changed.json.error.message).toMatch(/another request.*new key/);
    const elsewhere = await post(s, '/api/v1/capture-all', {}, 'key-1');
    expect(elsewhere.status).toBe(409);
    expect(saleCalls(s)).toBe(1);
  });

  it('concurrent repeats of a key while the first runs start one sale and all answer it', async () => {
    const { s } = await start();
    const startSale = s.payments.startSale.bind(s.payments);
    s.payments.startSale = async (req) => {
      // Slowed by design, so the repeats arrive while the first still runs.
      await new Promise((r) => setTimeout(r, 150));
      return startSale(req);
    };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(s, '/api/v1/sales', sale, 'same-key')));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.json.transaction.clientTransactionId)).size).toBe(1);
    expect(saleCalls(s)).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
  });

  it('a refusal frees the key (nothing was done), an unknown outcome is answered again as it was', async () => {
    const { s } = await start();
    const bad = await post(s, '/api/v1/sales', { ...sale, amount: 'twelve' }, 'key-bad');
    expect(bad.status).toBe(400);
    s.payments.failWith = new AgentError(ErrorCodes.PAYMENT_BUSY, 'the reader is busy with another sale');
    const busy = await post(s, '/api/v1/sales', sale, 'key-busy');
    expect(busy.status).toBe(409);
    s.payments.failWith = undefined;
    const retried = await post(s, '/api/v1/sales', sale, 'key-busy');
    expect(retried.status).toBe(202);
    const id = retried.json.transaction.clientTransactionId as string;

    s.payments.operationError = new AgentError(
      ErrorCodes.PAYMENT_NOT_DONE,
      "the platform did not answer: the refund's outcome is unknown",
    );
    const lost = await post(s, `/api/v1/transactions/${id}/refund`, { amount: '1.00' }, 'refund-1');
    expect(lost.status).toBe(504);
    const repeat = await post(s, `/api/v1/transactions/${id}/refund`, { amount: '1.00' }, 'refund-1');
    expect(repeat.status).toBe(504);
    expect(repeat.json).toEqual(lost.json);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(s.payments.calls.filter((c) => c.op === 'refund')).toHaveLength(1);
  });

  it('keys are per caller: the token and a signed-in clerk do not share them', async () => {
    const { s } = await start();
    const byToken = await post(s, '/api/v1/sales', sale, 'shared');
    const cookie = await signInCookie(s.url, CLERK);
    const byClerk = await post(s, '/api/v1/sales', sale, 'shared', { cookie });
    expect(byClerk.status).toBe(202);
    expect(byClerk.json.transaction.clientTransactionId).not.toBe(byToken.json.transaction.clientTransactionId);
    const clerkAgain = await post(s, '/api/v1/sales', sale, 'shared', { cookie });
    expect(clerkAgain.json.transaction.clientTransactionId).toBe(byClerk.json.transaction.clientTransactionId);
    expect(saleCalls(s)).toBe(2);
  });

  it('a key that is not printable or too long is refused before anything runs', async () => {
    const { s } = await start();
    const r = await post(s, '/api/v1/sales', sale, 'x'.repeat(129));
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/Idempotency-Key/);
    const spaced = await post(s, '/api/v1/sales', sale, 'a b');
    expect(spaced.status).toBe(400);
    expect(saleCalls(s)).toBe(0);
  });

  it('survives a restart: the kept key answers the same sale from the journal file', async () => {
    const first = await start();
    const r1 = await post(first.s, '/api/v1/sales', sale, 'restart-key');
    const id = r1.json.transaction.clientTransactionId as string;
    const view = first.s.payments.views.get(id);
    // Stop the agent's API and journal, then start both again on the same files.
    const entry = open.pop();
    await entry?.api?.close();
    entry?.journal?.close();
    const second = await start(first.dataDir);
    if (entry?.cleanup) open.push({ cleanup: entry.cleanup });
    if (view !== undefined) second.s.payments.view({ ...view, state: 'approved' });
    const r2 = await post(second.s, '/api/v1/sales', sale, 'restart-key');
    expect(r2.status).toBe(202);
    expect(r2.json.transaction.clientTransactionId).toBe(id);
    expect(r2.json.transaction.state).toBe('approved');
    expect(saleCalls(second.s)).toBe(0);
  });

  it('a key an earlier run claimed but never answered is refused with 409 (its outcome is unknown), not run again', async () => {
    const { s, journal } = await start();
    await post(s, '/api/v1/sales', sale, 'orphan');
    // As an agent killed between claiming the key and answering leaves it.
    journal.db
      .prepare("UPDATE idempotency_keys SET status = NULL, answer = NULL, client_id = NULL, run = 'an-earlier-run'")
      .run();
    const r = await post(s, '/api/v1/sales', sale, 'orphan');
    expect(r.status).toBe(409);
    expect(r.json.error.message).toMatch(/did not finish before the agent restarted.*reference/);
    expect(saleCalls(s)).toBe(1);
  });
});
