import { afterEach, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import { loadConfig } from '../../src/config/load.js';
import type { QueueItem } from '../../src/offline/index.js';
import { testCerts } from '../helpers/certs.js';
import { startDemo, testPlatformTimeZone, type Demo } from '../helpers/demo-platform.js';
import { call, untilTransaction } from '../helpers/http-client.js';
import { testLogger, type LogSink } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * A terminal restarted during an outage (docs/payments.md, "Offline card sale and
 * upload", merchant of an offline sale): the agent starts while the platform is unreachable
 * from its very first request, so the merchant credentials were never read, or were read
 * while the platform merchant id (m-1002) of a second merchant was not yet learnt from a
 * token. A card sale the reader approves offline goes offline (without or with a merchant
 * named), never refused with AUTH_NO_MERCHANT; once the platform is back it is uploaded
 * with its own merchant's token (the demo platform's ledger names the merchant). A merchant
 * the terminal turns out not to serve goes to needs_attention, never to another merchant.
 */
let demo: Demo | undefined;
let agent: RunningAgent | undefined;
let sink: LogSink | undefined;
let cleanup: (() => void) | undefined;

afterEach(async () => {
  await agent?.stop();
  await demo?.close();
  cleanup?.();
  agent = undefined;
  demo = undefined;
  sink = undefined;
  cleanup = undefined;
});

const AUTH = (a: RunningAgent): Record<string, string> => ({ authorization: `Bearer ${a.localToken}` });

/** The demo platform made unreachable before the agent sends anything, then the whole agent against it. */
async function startDuringOutage(): Promise<{ a: RunningAgent; platform: Demo }> {
  const platform = await startDemo();
  demo = platform;
  platform.platform.reachability.suspend(3_600);
  const tmp = tempDir('start-offline-');
  cleanup = tmp.cleanup;
  return { a: await startOn(platform, tmp.dir), platform };
}

/** The whole agent on `dataDir` against `platform` (reachable or not); it becomes the one afterEach stops. */
async function startOn(platform: Demo, dataDir: string): Promise<RunningAgent> {
  const certs = testCerts();
  const { config } = loadConfig({
    cwd: process.cwd(),
    env: {},
    flags: {
      dataDir,
      identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
      api: { port: 0 },
      log: { level: 'debug' },
      // The platform outside the agent, so that it is down before the agent's first request.
      sim: { embedded: false },
      platform: {
        baseUrl: platform.apiUrl,
        authUrl: platform.apiUrl,
        deviceAuthUrl: platform.mtlsUrl,
        connectTimeoutMs: 1_000,
        timeZone: testPlatformTimeZone(),
      },
      // Start-up reads the credentials again soon after the platform is back.
      auth: { backoffBaseMs: 50, backoffCapMs: 200 },
    },
  });
  const logged = testLogger('debug');
  sink = logged.sink;
  // Not waiting for `settled`: it waits for the first token, which the outage keeps away.
  agent = await startAgent({ config, log: logged.log });
  return agent;
}

/** A card sale over the local API, the simulated reader approving it offline; its final view (or the refusal). */
async function sell(a: RunningAgent, body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  a.simulated!.reader.nextCard({ entryMode: 'ContactChip', result: 'offlineApproved', delayMs: 20 });
  const r = await call(a.url, 'POST', '/api/v1/sales', {
    headers: AUTH(a),
    body: { method: 'card', currency: 'EUR', ...body },
  });
  if (r.status !== 202) return { status: r.status, json: r.json };
  const id = r.json.transaction.clientTransactionId as string;
  const t = await untilTransaction(
    a.url,
    AUTH(a),
    id,
    (tx) => !['awaiting_customer', 'created', 'in_flight'].includes(tx.state),
  );
  return { status: r.status, json: { transaction: t } };
}

/** An offline sale, as the clerk's register sees it. */
async function sellOffline(a: RunningAgent, body: Record<string, unknown>): Promise<string> {
  const r = await sell(a, body);
  expect(r.status, JSON.stringify(r.json)).toBe(202);
  expect(r.json.transaction, JSON.stringify(r.json)).toMatchObject({ state: 'offline_stored', offline: true });
  const id = r.json.transaction.clientTransactionId as string;
  expect(a.offline.get(id)?.state).toBe('queued');
  return id;
}

/** Flushes (the background uploader may go first) until the item left the queue's waiting states. */
async function settleUpload(a: RunningAgent, id: string): Promise<QueueItem> {
  const settled = (item: QueueItem | undefined): boolean =>
    item !== undefined && item.state !== 'queued' && item.state !== 'uploading';
  const item = await until(
    `offline sale ${id} uploaded or refused`,
    async () => {
      await a.offline.uploader.flush();
      return a.offline.get(id);
    },
    settled,
    { everyMs: 50 },
  ).catch(() => a.offline.get(id));
  if (item !== undefined && settled(item)) return item;
  throw new Error(
    `offline sale ${id} still ${item?.state ?? 'missing'} after ${item?.tries ?? 0} tries: ${item?.history.at(-1)?.message ?? ''}`,
  );
}

/** The platform's merchant the sale's money moved under (one ledger entry for an uploaded sale). */
function chargedMerchants(platform: Demo, id: string): string[] {
  return platform.platform.payments
    .ledger()
    .filter((e) => e.paymentClientTransactionId === id && e.effect !== 0)
    .map((e) => e.merchantId);
}

describe('a terminal started while the platform is unreachable (merchant credentials never read)', () => {
  it('takes offline-approved card sales offline, without merchantId and naming each merchant, and uploads each under its own merchant', async () => {
    const { a, platform } = await startDuringOutage();
    expect(a.auth.merchants()).toEqual([]);
    const byDefault = await sellOffline(a, { amount: '12.30' });
    const books = await sellOffline(a, { amount: '12.40', merchantId: 'm-1002' });
    const booksByName = await sellOffline(a, { amount: '12.50', merchantId: 'Demo Books' });
    const coffeeByClient = await sellOffline(a, { amount: '12.60', merchantId: 'terminal-app-1001' });
    expect(sink!.text()).not.toMatch(/AUTH_NO_MERCHANT/);
    expect(a.offline.get(books)?.merchantId).toBe('m-1002');

    platform.platform.reachability.resume();
    for (const id of [byDefault, books, booksByName, coffeeByClient])
      expect((await settleUpload(a, id)).state).toBe('uploaded');
    // No auth.merchantId: the default merchant is the first the platform lists (Demo Coffee).
    expect(chargedMerchants(platform, byDefault)).toEqual(['m-1001']);
    expect(chargedMerchants(platform, books)).toEqual(['m-1002']);
    expect(chargedMerchants(platform, booksByName)).toEqual(['m-1002']);
    expect(chargedMerchants(platform, coffeeByClient)).toEqual(['m-1001']);
    expect(platform.platform.payments.netCharged(books, 'm-1002')).toBe(1240);
    expect(
      (await call(a.url, 'GET', `/api/v1/transactions/${books}`, { headers: AUTH(a) })).json.transaction.state,
    ).toBe('approved');
  });

  it('a sale that cannot go offline gets the platform-unreachable answer, not AUTH_NO_MERCHANT', async () => {
    const { a } = await startDuringOutage();
    a.simulated!.reader.nextCard({ entryMode: 'ContactChip', result: 'approve', delayMs: 20 });
    const r = await call(a.url, 'POST', '/api/v1/sales', {
      headers: AUTH(a),
      body: { method: 'card', amount: '3.00', merchantId: 'm-1002' },
    });
    expect(r.status).toBe(202);
    const id = r.json.transaction.clientTransactionId as string;
    const t = await untilTransaction(
      a.url,
      AUTH(a),
      id,
      (tx) => !['awaiting_customer', 'created', 'in_flight'].includes(tx.state),
    );
    expect(t.state).toBe('failed');
    // The words of any sale during an outage: unreachable, and why.
    expect(t.message).toMatch(
      /^the platform cannot be reached \(no access token for process: .*could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\) and the card did not approve offline: nothing was charged$/,
    );
    expect(t.message).not.toMatch(/AUTH_NO_MERCHANT|not one of/);
  });

  it('a merchant the terminal does not serve, named during the outage: stored, then needs_attention at upload, never uploaded under another merchant', async () => {
    const { a, platform } = await startDuringOutage();
    const id = await sellOffline(a, { amount: '12.70', merchantId: 'm-nobody' });
    // Stored after it: not held up behind it (a deferred item ends an upload round).
    const after = await sellOffline(a, { amount: '12.80' });
    platform.platform.reachability.resume();
    const item = await settleUpload(a, id);
    expect(item.state).toBe('needs_attention');
    expect((await settleUpload(a, after)).state).toBe('uploaded');
    expect(chargedMerchants(platform, after)).toEqual(['m-1001']);
    expect(item.history.at(-1)?.message).toMatch(/merchant m-nobody is not one of this terminal's merchants/);
    expect(item.history.at(-1)?.message).toMatch(/never uploaded under another merchant/);
    expect(
      platform.platform.payments
        .ledger()
        .filter((e) => e.clientTransactionId === id || e.paymentClientTransactionId === id),
    ).toEqual([]);
    // Once the list is read, the same merchant is refused before the reader.
    const refused = await sell(a, { amount: '1.00', merchantId: 'm-nobody' });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'AUTH_NO_MERCHANT' } });
  });
});

describe("credentials read, a second merchant's platform id not yet learnt, the platform gone again", () => {
  it('a sale naming m-1002 goes offline (not AUTH_NO_MERCHANT) and is uploaded under m-1002', async () => {
    const { a, platform } = await startDuringOutage();
    platform.platform.reachability.resume();
    // The credentials are read and the default merchant's token (m-1001) held; m-1002 has no token yet.
    await a.settled;
    expect(a.auth.merchants().map((m) => m.merchantId)).toEqual(['m-1001', undefined]);
    platform.platform.reachability.suspend(3_600);

    const id = await sellOffline(a, { amount: '13.10', merchantId: 'm-1002' });
    platform.platform.reachability.resume();
    expect((await settleUpload(a, id)).state).toBe('uploaded');
    expect(chargedMerchants(platform, id)).toEqual(['m-1002']);
  });
});

describe('a terminal rebooted during an outage', () => {
  it('the sales before and after the restart go offline and each is uploaded under its merchant once the platform is back', async () => {
    const platform = await startDemo();
    demo = platform;
    const tmp = tempDir('start-offline-');
    cleanup = tmp.cleanup;
    const first = await startOn(platform, tmp.dir);
    await first.settled;
    platform.platform.reachability.suspend(3_600);
    const before = await sellOffline(first, { amount: '14.10', merchantId: 'm-1002' });
    await first.stop();
    agent = undefined;

    // Restarted on the same data directory, the platform still down: nothing read, nothing learnt.
    const second = await startOn(platform, tmp.dir);
    expect(second.auth.merchants()).toEqual([]);
    const books = await sellOffline(second, { amount: '14.20', merchantId: 'm-1002' });
    const byDefault = await sellOffline(second, { amount: '14.30' });
    expect(second.offline.api.levels().count).toBe(3);

    platform.platform.reachability.resume();
    for (const id of [before, books, byDefault]) expect((await settleUpload(second, id)).state).toBe('uploaded');
    expect(chargedMerchants(platform, before)).toEqual(['m-1002']);
    expect(chargedMerchants(platform, books)).toEqual(['m-1002']);
    expect(chargedMerchants(platform, byDefault)).toEqual(['m-1001']);
  });
});
