import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import { createOffline, type Offline } from '../../src/offline/index.js';
import { Journal, journalMigrations } from '../../src/payments/journal/index.js';
import { JournalWriter, offlineSaleReports } from '../../src/payments/index.js';
import { testLogger } from '../helpers/log-sink.js';
import { storeOfflineSale } from '../helpers/offline-sales.js';
import { tempDir } from '../helpers/temp-dir.js';

const BEFORE_7 = journalMigrations.filter((m) => m.version < 7);

/** The offline component on a journal (its queue tables created), the platform unreachable. */
function offlineOn(journal: Journal): Offline {
  const bus = new EventBus();
  const { log } = testLogger('debug');
  return createOffline({
    db: journal.db,
    reports: offlineSaleReports(new JournalWriter(journal, bus), log),
    bus,
    log,
    config: configSchema.parse({ offline: { maxCount: 100 } }).offline,
    platform: {
      isAvailable: async () => false,
      process: () => Promise.reject(new Error('offline')),
      status: () => Promise.reject(new Error('offline')),
    },
  });
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const sale = (id: string, extra: Record<string, unknown> = {}) => ({
  clientTransactionId: id,
  kind: 'sale' as const,
  amount: 1234,
  currency: 'EUR',
  state: 'in_flight' as const,
  clientDateTime: '2026-01-01T10:00:00.000Z',
  method: 'card' as const,
  ...extra,
});

/** Pages the write-ahead log took for `n` writes of `write`, per write (each its own commit). */
function pagesPerWrite(journal: Journal, n: number, write: (i: number) => void): number {
  journal.db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = journal.db.pragma('page_size', { simple: true }) as number;
  for (let i = 0; i < n; i++) write(i);
  return (statSync(`${journal.file}-wal`).size - 32) / (pageSize + 24) / n;
}

function plan(journal: Journal, sql: string, ...params: unknown[]): string {
  return (journal.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((p) => p.detail)
    .join('; ');
}

describe('journal migration 7: fewer index pages per write', () => {
  it('upgrades a journal with rows and queued offline sales, keeping every row and every indexed read', async () => {
    // A journal as the agent before migration 7 left it: rows, a refund, a settled sale, offline sales queued.
    const { dir, cleanup } = tempDir('journal-migrate-7-');
    cleanups.push(cleanup);
    const dataDir = join(dir, 'data');
    const old = new Journal({ dataDir, migrations: BEFORE_7 });
    old.insert(sale('s-1', { state: 'approved' }));
    old.update('s-1', { serverTransactionId: 'srv-1' });
    old.insert(sale('r-1', { kind: 'refund', relatedClientTransactionId: 's-1', state: 'approved' }));
    expect(old.db.pragma('user_version', { simple: true })).toBe(6);
    // The offline queue on that journal (its own schema), with two sales stored.
    const offline = offlineOn(old);
    storeOfflineSale(old, offline, { id: 'q-1', amount: 100 });
    storeOfflineSale(old, offline, { id: 'q-2', amount: 200 });
    await new Promise((resolve) => setImmediate(resolve));
    old.close();

    const journal = new Journal({ dataDir });
    cleanups.push(() => journal.close());
    expect(journal.db.pragma('user_version', { simple: true })).toBe(journalMigrations.length);
    const indexes = journal.db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL ORDER BY name",
      )
      .all() as Array<{ name: string; sql: string }>;
    expect(indexes.map((i) => i.name)).toEqual([
      'transactions_created',
      'transactions_reference',
      'transactions_related',
      'transactions_server_id',
      'transactions_state_updated',
    ]);
    expect(indexes.find((i) => i.name === 'transactions_related')?.sql).toMatch(/WHERE related_client_id IS NOT NULL/);
    expect(indexes.find((i) => i.name === 'transactions_server_id')?.sql).toMatch(/WHERE server_id IS NOT NULL/);
    // Every row is there, and every read by state, server id or related sale still uses an index.
    expect(journal.get('s-1')).toMatchObject({ state: 'approved', serverTransactionId: 'srv-1' });
    expect(journal.byServerId('srv-1')?.clientTransactionId).toBe('s-1');
    expect(journal.related('s-1').map((r) => r.clientTransactionId)).toEqual(['r-1']);
    expect(journal.inStates(['offline_stored']).map((r) => r.clientTransactionId)).toEqual(['q-1', 'q-2']);
    expect(journal.db.prepare('SELECT COUNT(*) FROM offline_queue').pluck().get()).toBe(2);
    expect(
      offlineOn(journal)
        .list()
        .map((i) => [i.clientTransactionId, i.state, i.holdsCardData]),
    ).toEqual([
      ['q-1', 'queued', true],
      ['q-2', 'queued', true],
    ]);
    expect(
      plan(journal, 'SELECT * FROM transactions WHERE server_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1', 'x'),
    ).toMatch(/USING INDEX transactions_server_id/);
    expect(
      plan(journal, 'SELECT * FROM transactions WHERE related_client_id = ? ORDER BY created_at, rowid', 'x'),
    ).toMatch(/USING INDEX transactions_related/);
    expect(
      plan(
        journal,
        "SELECT * FROM transactions WHERE state IN ('in_flight', 'reversing') ORDER BY created_at DESC, rowid DESC",
      ),
    ).toMatch(/USING INDEX transactions_state_updated/);
  });

  it("writes fewer pages per sale's insert than with the indexes it dropped", () => {
    const { dir, cleanup } = tempDir('journal-pages-');
    cleanups.push(cleanup);
    const before = new Journal({ dataDir: join(dir, 'before'), migrations: BEFORE_7 });
    const after = new Journal({ dataDir: join(dir, 'after') });
    cleanups.push(
      () => before.close(),
      () => after.close(),
    );
    // A journal with some history, so each index has a tree of its own.
    for (const j of [before, after])
      j.transaction(() =>
        Array.from({ length: 2_000 }, (_, i) =>
          j.insert(sale(`h-${i}`, { state: 'approved', serverTransactionId: `srv-${i}` })),
        ),
      );
    const old = pagesPerWrite(before, 50, (i) => before.insert(sale(`n-${i}`)));
    const now = pagesPerWrite(after, 50, (i) => after.insert(sale(`n-${i}`)));
    // Three index entries fewer per sale (state, related, server id): about 3 pages of 8 to 9.
    expect(now).toBeLessThan(old - 2);
  });
});
