import { chmodSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import { buildLocalApi } from '../../src/agent/local-api.js';
import { loadOrCreateLocalToken, localTokenPath, tokenMatches } from '../../src/ui/shared/local-token.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testLogger } from '../helpers/log-sink.js';
import { call } from '../helpers/http-client.js';
import { FakePayments } from '../helpers/fake-payments.js';
import { FakeHealth, startApi } from '../helpers/local-api.js';

describe('local API token', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('is created at first start with mode 0600 and reused after a restart', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');
    const first = await startApi({ dataDir });
    const file = localTokenPath(dataDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.token);
    expect(first.token.length).toBeGreaterThanOrEqual(43);
    await first.close();
    const second = await startApi({ dataDir });
    expect(second.token).toBe(first.token);
    const r = await call(second.url, 'GET', '/api/v1/transactions', {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(r.status).toBe(200);
    await second.close();
  });

  it('tightens a token file readable by others back to 0600', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { log, sink } = testLogger();
    const token = loadOrCreateLocalToken(tmp.dir, log);
    chmodSync(localTokenPath(tmp.dir), 0o644);
    expect(loadOrCreateLocalToken(tmp.dir, log)).toBe(token);
    expect(statSync(localTokenPath(tmp.dir)).mode & 0o777).toBe(0o600);
    expect(sink.text()).toMatch(/mode set to 0600/);
    expect(sink.text()).not.toContain(token);
  });

  it('replaces a malformed token file', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    mkdirSync(tmp.dir, { recursive: true });
    writeFileSync(localTokenPath(tmp.dir), 'short\n', { mode: 0o600 });
    const token = loadOrCreateLocalToken(tmp.dir, testLogger().log);
    expect(token).not.toBe('short');
    expect(token.length).toBeGreaterThanOrEqual(43);
  });

  it('compares tokens of different lengths without throwing', () => {
    expect(tokenMatches('a', 'abc')).toBe(false);
    expect(tokenMatches('abc', 'abc')).toBe(true);
  });

  it('compares with the token expected now when it changes (its digest is kept between requests)', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abc', 'abd')).toBe(false);
    expect(tokenMatches('abd', 'abd')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
  });
});

describe('loopback-only binding', () => {
  it('refuses a non-loopback api.host even when the schema is bypassed', async () => {
    const tmp = tempDir();
    try {
      const config = configSchema.parse({ dataDir: tmp.dir, api: { port: 0 } });
      const bad = { ...config, api: { ...config.api, host: '0.0.0.0' } } as unknown as Config;
      const api = buildLocalApi({
        config: bad,
        payments: new FakePayments(),
        bus: new EventBus(),
        log: testLogger().log,
        health: new FakeHealth(),
      });
      await expect(api.start()).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: /loopback/ });
    } finally {
      tmp.cleanup();
    }
  });

  it('the config schema refuses a non-loopback api.host', () => {
    expect(configSchema.safeParse({ api: { host: '0.0.0.0' } }).success).toBe(false);
  });

  it('a port already taken is a clear error and leaves nothing running', async () => {
    const first = await startApi();
    try {
      const port = Number(new URL(first.url).port);
      const tmp = tempDir();
      const config = configSchema.parse({ dataDir: tmp.dir, api: { port } });
      const api = buildLocalApi({
        config,
        payments: new FakePayments(),
        bus: new EventBus(),
        log: testLogger().log,
        health: new FakeHealth(),
      });
      await expect(api.start()).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: /EADDRINUSE/ });
      tmp.cleanup();
    } finally {
      await first.close();
    }
  });
});
