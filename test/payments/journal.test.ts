import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, journalMigrations, type Migration } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function openJournal(migrations?: Migration[], now?: () => number): { journal: Journal; dir: string } {
  const { dir, cleanup } = tempDir('journal-');
  const journal = new Journal({
    dataDir: join(dir, 'data'),
    ...(migrations ? { migrations } : {}),
    ...(now ? { clock: { wall: now } } : {}),
  });
  cleanups.push(cleanup, () => journal.close());
  return { journal, dir: join(dir, 'data') };
}

const sale = {
  clientTransactionId: 'c-1',
  kind: 'sale' as const,
  amount: 1234,
  currency: 'EUR',
  state: 'created' as const,
  clientDateTime: '2026-01-01T10:00:00.000Z',
  method: 'card' as const,
};

describe('journal', () => {
  it('creates the file 0600 in a 0700 directory, with WAL and synchronous=FULL', () => {
    const { journal, dir } = openJournal();
    journal.insert(sale);
    expect(statSync(journal.file).mode & 0o777).toBe(0o600);
    expect(statSync(`${journal.file}-wal`).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(journal.db.pragma('journal_mode', { simple: true })).toBe('wal');
    // 2 = FULL
    expect(journal.db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('applies numbered migrations by user_version, once, and later ones on reopen', () => {
    const { journal, dir } = openJournal();
    const latest = journalMigrations.length;
    expect(journal.db.pragma('user_version', { simple: true })).toBe(latest);
    journal.insert(sale);
    journal.close();
    const extra: Migration = {
      version: latest + 1,
      name: 'queue',
      up: (db) => db.exec('CREATE TABLE queue (client_id TEXT PRIMARY KEY REFERENCES transactions (client_id))'),
    };
    const reopened = new Journal({ dataDir: dir, migrations: [...journalMigrations, extra] });
    cleanups.push(() => reopened.close());
    expect(reopened.db.pragma('user_version', { simple: true })).toBe(latest + 1);
    expect(reopened.get('c-1')?.amount).toBe(1234);
    // An update of the journal and an insert into another table share one transaction.
    expect(() =>
      reopened.transaction((db) => {
        reopened.update('c-1', { state: 'offline_stored' });
        db.prepare('INSERT INTO queue (client_id) VALUES (?)').run('c-1');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(reopened.get('c-1')?.state).toBe('created');
    reopened.transaction((db) => {
      reopened.update('c-1', { state: 'offline_stored' });
      db.prepare('INSERT INTO queue (client_id) VALUES (?)').run('c-1');
    });
    expect(reopened.get('c-1')?.state).toBe('offline_stored');
  });

  it('refuses a database newer than the agent and a gap in the migration numbers', () => {
    const { journal, dir } = openJournal();
    const newer = journalMigrations.length + 1;
    journal.db.pragma(`user_version = ${newer}`);
    journal.close();
    expect(() => new Journal({ dataDir: dir })).toThrow(new RegExp(`schema version ${newer}, newer`));
    const { dir: other } = openJournal();
    const gap: Migration = { version: journalMigrations.length + 2, name: 'gap', up: () => {} };
    expect(
      () => new Journal({ dataDir: other, fileName: 'x.sqlite', migrations: [...journalMigrations, gap] }),
    ).toThrow(/numbered 1, 2, 3/);
  });

  it('round-trips every field and keeps a committed row across a reopen', () => {
    let t = Date.parse('2026-03-01T12:00:00Z');
    const { journal, dir } = openJournal(undefined, () => t);
    journal.insert({ ...sale, merchantId: 'm-1001', cardSecret: { encryptedData: 'ENC', ksn: 'K', expiry: '2812' } });
    t += 1000;
    const row = journal.update('c-1', {
      state: 'approved',
      serverTransactionId: 's-1',
      platformStatus: 'Captured',
      events: [{ eventType: 'x' }],
      capturedAmount: 1234,
      maskedPan: '411111******1111',
      offline: false,
    });
    expect(row).toMatchObject({
      state: 'approved',
      serverTransactionId: 's-1',
      capturedAmount: 1234,
      merchantId: 'm-1001',
      events: [{ eventType: 'x' }],
    });
    expect(row.createdAt).toBe('2026-03-01T12:00:00.000Z');
    expect(row.updatedAt).toBe('2026-03-01T12:00:01.000Z');
    journal.close();
    const raw = new Database(join(dir, 'journal.sqlite'), { readonly: true });
    cleanups.push(() => raw.close());
    expect(raw.prepare('SELECT state FROM transactions WHERE client_id = ?').pluck().get('c-1')).toBe('approved');
  });

  it('clears card data when the row leaves the states that need it', () => {
    const { journal } = openJournal();
    journal.insert({ ...sale, cardSecret: { encryptedData: 'ENC', ksn: 'K', expiry: '2812', pinblock: 'PB' } });
    expect(journal.update('c-1', { state: 'in_flight' }).cardSecret?.encryptedData).toBe('ENC');
    // Online PIN is meaningless offline: an offline_stored row keeps the card, never the PIN block.
    const stored = journal.update('c-1', { state: 'offline_stored' }).cardSecret;
    expect(stored).toEqual({ encryptedData: 'ENC', ksn: 'K', expiry: '2812' });
    expect(journal.update('c-1', { state: 'approved' }).cardSecret).toBeUndefined();
    const raw = journal.db.prepare('SELECT card_secret FROM transactions').pluck().get();
    expect(raw).toBeNull();
  });

  it('refuses a second row with the same client transaction id', () => {
    const { journal } = openJournal();
    journal.insert(sale);
    expect(() => journal.insert(sale)).toThrow(/exists already/);
  });

  it('lists newest first with date bounds, states and limit; related operations oldest first', () => {
    let t = Date.parse('2026-03-01T12:00:00Z');
    const { journal } = openJournal(undefined, () => t);
    journal.insert(sale);
    t += 86_400_000;
    journal.insert({ ...sale, clientTransactionId: 'c-2', state: 'approved' });
    t += 1;
    journal.insert({ ...sale, clientTransactionId: 'r-1', kind: 'refund', relatedClientTransactionId: 'c-2' });
    t += 1;
    journal.insert({ ...sale, clientTransactionId: 'r-2', kind: 'refund', relatedClientTransactionId: 'c-2' });
    expect(journal.list().map((r) => r.clientTransactionId)).toEqual(['r-2', 'r-1', 'c-2', 'c-1']);
    expect(journal.list({ from: '2026-03-02T00:00:00Z', kind: 'sale' }).map((r) => r.clientTransactionId)).toEqual([
      'c-2',
    ]);
    expect(journal.list({ to: '2026-03-02T00:00:00Z' }).map((r) => r.clientTransactionId)).toEqual(['c-1']);
    expect(journal.list({ states: ['approved'] }).map((r) => r.clientTransactionId)).toEqual(['c-2']);
    expect(journal.list({ limit: 1 })).toHaveLength(1);
    expect(journal.related('c-2').map((r) => r.clientTransactionId)).toEqual(['r-1', 'r-2']);
  });
});

describe('the journal stays fast when it is large', () => {
  it('a row is found by its server transaction id through an index, not by reading every row', () => {
    const { journal } = openJournal();
    const plan = journal.db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT * FROM transactions WHERE server_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
      )
      .all('srv-1') as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('; ')).toMatch(/USING INDEX transactions_server_id/);
  });
});
