import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureOfflineSchema, OfflineQueue } from '../../src/offline/index.js';
import type { OfflineLevels } from '../../src/offline/types.js';
import { Journal } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { localFixture, processBody, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';

let f: LocalFixture | undefined;
const cleanups: Array<() => void> = [];
afterEach(() => {
  f?.close();
  f = undefined;
  for (const c of cleanups.splice(0)) c();
});

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** The stores' microtasks, then the queue-wide pass they scheduled for the next check phase. */
const settle = async (): Promise<void> => {
  await turn();
  await turn();
};

describe('after-store work of a burst of offline sales', () => {
  it('publishes one offline.item per sale and final levels equal to the queue, for a burst stored in one turn', async () => {
    f = localFixture({ maxCount: 50, maxTotal: { EUR: 1_000_000 } });
    const ids = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
    for (const [i, id] of ids.entries()) storeOfflineSale(f.journal, f.offline, { id, amount: 100 + i });
    await settle();
    const items = f.events
      .filter((e) => e.type === 'offline.item')
      .map((e) => e.data as { clientTransactionId: string; state: string });
    expect(items.map((i) => i.clientTransactionId)).toEqual(ids);
    expect(items.every((i) => i.state === 'queued')).toBe(true);
    expect(
      f.sink
        .records()
        .filter((r) => r.msg === 'offline sale stored')
        .map((r) => r.clientTransactionId),
    ).toEqual(ids);
    const published = f.events.filter((e) => e.type === 'offline.levels').map((e) => e.data as OfflineLevels);
    // One queue-wide pass for the whole burst, and what it published is the queue as it is.
    expect(published).toHaveLength(1);
    const last = published.at(-1) as OfflineLevels;
    const now = f.offline.levels();
    expect(last.count).toEqual(now.count);
    expect(last.totals).toEqual(now.totals);
    expect(last.states).toEqual(now.states);
    expect(last.count.stored).toBe(12);
    expect(last.totals.find((t) => t.currency === 'EUR')?.stored).toBe(ids.reduce((sum, _, i) => sum + 100 + i, 0));
  });

  it('publishes nothing for a store whose transaction rolled back, and the next sale is still published', async () => {
    f = localFixture();
    const fx = f;
    const at = new Date().toISOString();
    fx.journal.insert({
      clientTransactionId: 'rb-1',
      kind: 'sale',
      method: 'card',
      amount: 500,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: at,
    });
    expect(() =>
      fx.journal.transaction(() => {
        const row = fx.journal.update('rb-1', { state: 'offline_stored', offline: true });
        fx.offline.hook.store({ row, body: processBody({ id: 'rb-1', amount: 500, clientDateTime: at }) });
        throw new Error('the caller failed after the store');
      }),
    ).toThrow('the caller failed after the store');
    storeOfflineSale(fx.journal, fx.offline, { id: 'ok-1', amount: 700 });
    await settle();
    expect(fx.offline.get('rb-1')).toBeUndefined();
    expect(
      fx.events
        .filter((e) => e.type === 'offline.item')
        .map((e) => (e.data as { clientTransactionId: string }).clientTransactionId),
    ).toEqual(['ok-1']);
    expect(fx.offline.levels().count.stored).toBe(1);
    expect((fx.events.filter((e) => e.type === 'offline.levels').at(-1)?.data as OfflineLevels).count.stored).toBe(1);
  });

  it('a second store in the same turn still sees the first one in its limit check', () => {
    f = localFixture({ maxCount: 2 });
    storeOfflineSale(f.journal, f.offline, { id: 'a' });
    storeOfflineSale(f.journal, f.offline, { id: 'b' });
    expect(() => storeOfflineSale(f!.journal, f!.offline, { id: 'c' })).toThrow(
      'offline queue full: 2 sales stored (at most 2)',
    );
  });
});

/** What the triggers keep must equal what aggregating the queue says. */
function aggregates(db: Database.Database): { counts: unknown[]; kept: unknown[] } {
  const counts = db
    .prepare(
      'SELECT state, currency, COUNT(*) AS n, SUM(amount) AS total FROM offline_queue GROUP BY state, currency ORDER BY state, currency',
    )
    .all();
  const kept = db
    .prepare('SELECT state, currency, n, total FROM offline_counts WHERE n <> 0 OR total <> 0 ORDER BY state, currency')
    .all();
  return { counts, kept };
}

describe('offline counts kept by triggers', () => {
  it('equal the queue after stores, state changes, amount changes, deletes and a rolled-back write', () => {
    f = localFixture({
      maxCount: 100,
      maxTotal: { EUR: 1_000_000, USD: 1_000_000 },
      floorLimits: { EUR: 25_000, USD: 25_000 },
    });
    const { journal, offline } = f;
    for (let i = 0; i < 8; i++)
      storeOfflineSale(journal, offline, { id: `c-${i}`, amount: 1000 + i, currency: i % 3 === 0 ? 'USD' : 'EUR' });
    const db = journal.db;
    const queue = new OfflineQueue(db);
    queue.markUploading(['c-0', 'c-1']);
    queue.update('c-1', { state: 'uploaded', dropBody: true });
    queue.update('c-2', { state: 'needs_attention' });
    queue.update('c-3', { state: 'declined_after_upload' });
    queue.update('c-3', { message: 'no state change' });
    db.prepare('UPDATE offline_queue SET amount = amount + 5, currency = ? WHERE client_id = ?').run('USD', 'c-4');
    db.prepare('DELETE FROM offline_queue WHERE client_id = ?').run('c-5');
    expect(() =>
      journal.transaction(() => {
        queue.update('c-6', { state: 'uploaded' });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    const { counts, kept } = aggregates(db);
    expect(kept).toEqual(counts);
    const stats = queue.stats();
    expect(stats.count).toBe(5);
    expect(stats.totals).toEqual({ EUR: 1002 + 1007, USD: 1000 + 1009 + 1006 });
    expect(stats.oldest?.clientTransactionId).toBe('c-0');
    expect(queue.stateCounts()).toEqual({
      queued: 3,
      uploading: 1,
      uploaded: 1,
      declined_after_upload: 1,
      needs_attention: 1,
    });
  });

  it('are filled from the rows of a queue created before them (schema 1 upgraded)', () => {
    const tmp = tempDir('offline-counts-');
    cleanups.push(tmp.cleanup);
    const journal = new Journal({ dataDir: join(tmp.dir, 'data') });
    cleanups.unshift(() => journal.close());
    const db = journal.db;
    ensureOfflineSchema(db);
    // Back to the schema-1 shape: the rows stay, the counts and triggers go.
    for (let i = 0; i < 4; i++) {
      journal.insert({
        clientTransactionId: `old-${i}`,
        kind: 'sale',
        method: 'card',
        amount: 200 + i,
        currency: 'EUR',
        state: 'offline_stored',
        clientDateTime: new Date().toISOString(),
      });
      new OfflineQueue(db).insert({
        row: journal.require(`old-${i}`),
        body: processBody({
          id: `old-${i}`,
          amount: 200 + i,
          clientDateTime: journal.require(`old-${i}`).clientDateTime,
        }),
      });
    }
    db.exec(
      "DROP TRIGGER offline_counts_insert; DROP TRIGGER offline_counts_delete; DROP TRIGGER offline_counts_update; DROP TABLE offline_counts; UPDATE component_schema SET version = 1 WHERE component = 'offline_queue'",
    );
    db.prepare("UPDATE offline_queue SET state = 'uploaded' WHERE client_id = 'old-3'").run();
    // A schema-1 file read by the queue aggregates the rows themselves.
    expect(new OfflineQueue(db).stats()).toMatchObject({ count: 3, totals: { EUR: 603 } });
    ensureOfflineSchema(db);
    const { counts, kept } = aggregates(db);
    expect(kept).toEqual(counts);
    expect(new OfflineQueue(db).stats()).toMatchObject({
      count: 3,
      totals: { EUR: 603 },
      oldest: { clientTransactionId: 'old-0' },
    });
  });
});
