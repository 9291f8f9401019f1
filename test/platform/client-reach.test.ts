import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../src/auth/index.js';
import { EventBus } from '../../src/events/index.js';
import { PlatformClient, PlatformWatch } from '../../src/platform/index.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import { systemClock } from '../../src/core/index.js';
import { dispatchersOf, identityOf, startDemo, type Demo } from '../helpers/demo-platform.js';

/** Every call of the real client tells the PlatformWatch what it saw, against the demo platform over mutual TLS. */
describe('PlatformClient reports reachability to the watch', () => {
  let demo: Demo;
  let auth: AuthService;
  let dispatchers: HostDispatchers;
  let watch: PlatformWatch;
  let client: PlatformClient;
  const published: Array<{ online: boolean; reason?: string }> = [];

  beforeAll(async () => {
    demo = await startDemo({ walletPayDelayMs: 0 });
    const identity = identityOf('device');
    dispatchers = dispatchersOf(identity, { connectTimeoutMs: 2_000, headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000 });
    auth = new AuthService({
      identity,
      endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
      dispatchers,
      settings: {
        mode: 'client_credentials',
        refreshRatio: 0.8,
        leewaySeconds: 30,
        backoffBaseMs: 20,
        backoffCapMs: 200,
      },
      log: demo.log,
    });
    await auth.start();
    const bus = new EventBus();
    bus.on('platform.status', (e) => published.push(e.data));
    watch = new PlatformWatch({
      bus,
      log: demo.log,
      clock: systemClock(),
      intervalMs: 60_000,
      backoff: { baseMs: 60_000, capMs: 60_000 },
    });
    client = new PlatformClient({
      baseUrl: demo.apiUrl,
      dispatchers,
      tokens: auth,
      log: demo.log,
      getRetry: { retries: 0, backoff: { baseMs: 10, capMs: 10 }, maxRetryAfterMs: 1_000 },
      availabilityTimeoutMs: 500,
      reach: watch,
    });
  });
  afterAll(async () => {
    watch?.stop();
    auth?.stop();
    await dispatchers?.close();
    await demo?.close();
  });

  it('an answer, even a 404, is online; a dropped connection is offline at once, in words without host or socket code', async () => {
    await expect(client.status('no-such-sale')).rejects.toThrow();
    expect(watch.view()).toMatchObject({ online: true, state: 'online' });
    demo.platform.faults.set('status', { drop: 'before', times: 1 });
    await expect(client.status('no-such-sale')).rejects.toThrow();
    const v = watch.view();
    expect(v.state).toBe('offline');
    expect(v.reason).toMatch(/platform/);
    expect(v.reason).not.toMatch(/127\.0\.0\.1|:\d{2,5}|ECONN|UND_ERR/);
    await client.countries();
    expect(watch.online).toBe(true);
    expect(published.map((p) => p.online)).toEqual([true, false, true]);
  });

  it('isAvailable other than 200 is offline; 200 is online', async () => {
    demo.platform.faults.set('isAvailable', { status: 503, times: 1 });
    await expect(client.isAvailable()).resolves.toBe(false);
    expect(watch.view()).toMatchObject({ state: 'offline', reason: 'the platform says it is not available (503)' });
    await expect(client.isAvailable()).resolves.toBe(true);
    expect(watch.online).toBe(true);
  });

  it('isAvailable without an answer within its budget is offline', async () => {
    demo.platform.faults.set('isAvailable', { latencyMs: 1_500, times: 1 });
    await expect(client.isAvailable()).resolves.toBe(false);
    expect(watch.view()).toMatchObject({ state: 'offline', reason: 'the platform did not answer in time' });
    await client.isAvailable();
    expect(watch.online).toBe(true);
  });

  it("the caller's own abort says nothing about the platform", async () => {
    const abort = new AbortController();
    demo.platform.faults.set('status', { latencyMs: 800, times: 1 });
    const call = client.status('no-such-sale', { signal: abort.signal });
    setTimeout(() => abort.abort(new Error('sale aborted')), 100);
    await expect(call).rejects.toThrow();
    expect(watch.online).toBe(true);
  });
});
