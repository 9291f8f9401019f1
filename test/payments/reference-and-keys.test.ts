import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyKeys, Journal, journalMigrations, migrate } from '../../src/payments/journal/index.js';
import { saleReferenceProblem } from '../../src/payments/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function dataDir(): string {
  const { dir, cleanup } = tempDir('journal-reference-');
  cleanups.push(cleanup);
  return join(dir, 'data');
}

const row = (id: string, reference?: string) => ({
  clientTransactionId: id,
  kind: 'sale' as const,
  amount: 500,
  currency: 'EUR',
  state: 'created' as const,
  clientDateTime: '2026-01-01T10:00:00.000Z',
  method: 'card' as const,
  ...(reference !== undefined ? { reference } : {}),
});

describe('caller reference in the journal (docs/local-api.md, "Caller reference")', () => {
  it('is kept with the row, survives updates and a reopen, and finds the rows carrying it', () => {
    const dir = dataDir();
    const journal = new Journal({ dataDir: dir });
    journal.insert(row('a', 'POS-17'));
    journal.insert(row('b'));
    journal.insert(row('c', 'POS-17'));
    journal.insert(row('d', 'POS-18'));
    journal.update('a', { state: 'approved' });
    journal.close();
    const reopened = new Journal({ dataDir: dir });
    cleanups.push(() => reopened.close());
    expect(reopened.get('a')?.reference).toBe('POS-17');
    expect(reopened.get('b')?.reference).toBeUndefined();
    expect(
      reopened
        .list({ reference: 'POS-17' })
        .map((r) => r.clientTransactionId)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(reopened.list({ reference: 'POS-1' })).toEqual([]);
  });

  it('a journal of schema version 3 gains the column (rows keep none) and the key table', () => {
    const dir = dataDir();
    const file = join(dir, 'old.sqlite');
    const db = new Database(
      (() => {
        const j = new Journal({ dataDir: dir, fileName: 'old.sqlite', migrations: journalMigrations.slice(0, 3) });
        j.insert(row('old'));
        j.close();
        return file;
      })(),
    );
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBe(journalMigrations.length);
    expect(db.prepare('SELECT reference FROM transactions WHERE client_id = ?').get('old')).toEqual({
      reference: null,
    });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'idempotency_keys'").get()).toBeDefined();
    db.close();
  });

  it('accepts printable text up to 64 characters and refuses control characters, empty and longer text', () => {
    expect(saleReferenceProblem('Kasse 2 / Bon 4711')).toBeUndefined();
    expect(saleReferenceProblem('Café-Beleg №7')).toBeUndefined();
    expect(saleReferenceProblem('x'.repeat(64))).toBeUndefined();
    expect(saleReferenceProblem('x'.repeat(65))).toMatch(/at most 64/);
    expect(saleReferenceProblem('   ')).toMatch(/empty/);
    expect(saleReferenceProblem('a\nb')).toMatch(/printable/);
    expect(saleReferenceProblem('a\u202eb')).toMatch(/printable/);
  });
});

describe('idempotency keys in the journal file', () => {
  function keys(now: { t: number }) {
    const journal = new Journal({ dataDir: dataDir() });
    cleanups.push(() => journal.close());
    return new IdempotencyKeys(journal.db, { wall: () => now.t }, 48 * 3_600_000);
  }

  it('claims a key once per scope, keeps the answer, and frees it on release', () => {
    const now = { t: Date.parse('2026-03-01T10:00:00Z') };
    const k = keys(now);
    expect(k.claim('token', 'k1', 'h1', 'run-1')).toBe(true);
    expect(k.claim('token', 'k1', 'h1', 'run-1')).toBe(false);
    expect(k.claim('register:1', 'k1', 'h1', 'run-1')).toBe(true);
    k.complete('token', 'k1', { status: 202, answer: '{}', clientTransactionId: 'T-1' });
    expect(k.get('token', 'k1')).toMatchObject({
      requestHash: 'h1',
      status: 202,
      clientTransactionId: 'T-1',
      run: 'run-1',
    });
    k.release('register:1', 'k1');
    expect(k.get('register:1', 'k1')).toBeUndefined();
  });

  it('forgets keys older than the retention (48 hours), so the table stays bounded', () => {
    const now = { t: Date.parse('2026-03-01T10:00:00Z') };
    const k = keys(now);
    k.claim('token', 'old', 'h', 'run');
    k.complete('token', 'old', { status: 200, answer: '{}' });
    now.t += 47 * 3_600_000;
    expect(k.get('token', 'old')).toBeDefined();
    now.t += 2 * 3_600_000;
    expect(k.get('token', 'old')).toBeUndefined();
    // The next claim deletes it from the file; the key may be used again.
    expect(k.claim('token', 'old', 'h2', 'run')).toBe(true);
    expect(k.get('token', 'old')?.requestHash).toBe('h2');
  });
});
