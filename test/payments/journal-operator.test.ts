import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, journalMigrations, withOperator } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const row = (id: string) => ({
  clientTransactionId: id,
  kind: 'sale' as const,
  amount: 500,
  currency: 'EUR',
  state: 'created' as const,
  clientDateTime: '2026-01-01T10:00:00.000Z',
  method: 'card' as const,
});

function dataDir(): string {
  const { dir, cleanup } = tempDir('journal-operator-');
  cleanups.push(cleanup);
  return join(dir, 'data');
}

describe('journal operator column', () => {
  it('records the operator of the work that inserted the row, across awaits; agent outside any request', async () => {
    const journal = new Journal({ dataDir: dataDir() });
    cleanups.push(() => journal.close());
    await withOperator('staff1', async () => {
      // A timer between the start and the insert: the operator must survive a real await.
      await new Promise((r) => setTimeout(r, 1));
      journal.insert(row('a'));
    });
    withOperator('cli', () => journal.insert(row('b')));
    journal.insert(row('c'));
    // An update never changes who made the row.
    withOperator('someone-else', () => journal.update('a', { state: 'in_flight' }));
    expect(journal.get('a')?.operator).toBe('staff1');
    expect(journal.get('b')?.operator).toBe('cli');
    expect(journal.get('c')?.operator).toBe('agent');
  });

  it('adds the column to a journal of the first schema; its rows keep no operator', () => {
    const dir = dataDir();
    // A journal as the agent before operators made it: the first schema and a row written then.
    const first = new Journal({ dataDir: dir, migrations: journalMigrations.slice(0, 1) });
    first.db
      .prepare(
        "INSERT INTO transactions (client_id, kind, amount, currency, state, client_date_time, created_at, updated_at) VALUES ('old', 'sale', 500, 'EUR', 'created', 'x', 'x', 'x')",
      )
      .run();
    first.close();
    const journal = new Journal({ dataDir: dir });
    cleanups.push(() => journal.close());
    expect(journal.get('old')?.operator).toBeUndefined();
    withOperator('staff1', () => journal.insert(row('new')));
    expect(journal.get('new')?.operator).toBe('staff1');
    const db = new Database(join(dir, 'journal.sqlite'), { readonly: true });
    cleanups.push(() => db.close());
    expect(db.pragma('user_version', { simple: true })).toBe(journalMigrations.length);
    expect(db.prepare('SELECT client_id, operator FROM transactions ORDER BY client_id').all()).toEqual([
      { client_id: 'new', operator: 'staff1' },
      { client_id: 'old', operator: null },
    ]);
  });
});
