import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import { Journal } from '../../src/payments/journal/index.js';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { PaymentService } from '../../src/payments/service.js';
import { fakePeripherals } from '../helpers/fake-peripherals.js';
import { fillJournal, freeJournal } from '../helpers/full-journal.js';
import { call } from '../helpers/http-client.js';
import { FakeHealth, startApi, type Started } from '../helpers/local-api.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A platform no test here reaches: storage checks never call it. */
const noPlatform = new Proxy(
  {},
  { get: () => () => Promise.reject(new Error('no platform in this test')) },
) as PaymentsPlatform;

/** The real payments storage checks (a real journal file, an injected statfs) behind the real /readyz and /api/v1/status. */
class StorageHealth extends FakeHealth {
  constructor(private readonly payments: PaymentService) {
    super();
  }
  storage(): ReturnType<PaymentService['storage']> {
    return this.payments.storage();
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setUp(freeMb: () => number): Promise<{ s: Started; journal: Journal }> {
  const tmp = tempDir('readyz-storage-');
  cleanups.push(tmp.cleanup);
  const dataDir = join(tmp.dir, 'data');
  const config = configSchema.parse({ dataDir, payments: { minFreeDiskMb: 64 } });
  const journal = new Journal({ dataDir });
  cleanups.push(() => journal.close());
  const payments = new PaymentService({
    journal,
    platform: noPlatform,
    peripherals: fakePeripherals(),
    bus: new EventBus(),
    log: testLogger().log,
    config,
    statfs: () => ({ bavail: freeMb(), bsize: 1024 * 1024 }),
  });
  cleanups.push(() => payments.stop());
  const s = await startApi({ dataDir, extra: { health: new StorageHealth(payments) } });
  cleanups.push(() => s.close());
  return { s, journal };
}

describe('/readyz: journal writable and free space (docs/operations.md, "Health endpoints")', () => {
  it('503 with the reason while the journal cannot write (SQLITE_FULL for real); 200 again once it can', async () => {
    const { s, journal } = await setUp(() => 1000);
    const ok = await call(s.url, 'GET', '/readyz');
    expect(ok.status).toBe(200);
    expect(ok.json.checks.journal).toEqual({ ok: true, detail: 'journal writable' });
    fillJournal(journal);
    const full = await call(s.url, 'GET', '/readyz');
    expect(full.status).toBe(503);
    expect(full.json.checks.journal.ok).toBe(false);
    expect(full.json.checks.journal.detail).toMatch(/SQLITE_FULL/);
    // The same fields on /api/v1/status, for the page and the CLI.
    const status = await call(s.url, 'GET', '/api/v1/status', { headers: s.auth });
    expect(status.json.ready).toBe(false);
    expect(status.json.checks.journal.detail).toMatch(/journal cannot write/);
    freeJournal(journal);
    const back = await call(s.url, 'GET', '/readyz');
    expect(back.status).toBe(200);
  });

  it('503 naming the margin while free space is below payments.minFreeDiskMb', async () => {
    let free = 10;
    const { s } = await setUp(() => free);
    const low = await call(s.url, 'GET', '/readyz');
    expect(low.status).toBe(503);
    expect(low.json.checks.disk).toEqual({
      ok: false,
      detail: 'only 10 MB free in the data directory, below payments.minFreeDiskMb (64 MB): free space',
    });
    free = 500;
    expect((await call(s.url, 'GET', '/readyz')).status).toBe(200);
  });
});
