import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseAcrossBoundary, journalSqlInOffline, journalTables } from './offline-boundary.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tree(files: Record<string, string>): string {
  const { dir: root, cleanup } = tempDir('boundary-');
  cleanups.push(cleanup);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the boundary between offline and payments (docs/offline.md, "Offline and payments")', () => {
  it('knows the journal tables from the journal code', () => {
    expect(journalTables('src/payments')).toEqual(
      expect.arrayContaining(['transactions', 'idempotency_keys', 'audit']),
    );
    expect(journalTables('src/payments')).not.toContain('offline_queue');
  });

  it('no SQL in src/offline names a journal table', () => {
    const found = journalSqlInOffline('src/offline', journalTables('src/payments'));
    expect(found, found.join('\n')).toEqual([]);
  });

  it('nothing src/offline imports from src/payments carries a Database', () => {
    const found = databaseAcrossBoundary('src/offline', 'src/payments');
    expect(found, found.join('\n')).toEqual([]);
  }, 60_000);

  it('reports a join, a column probe and a foreign key to a journal table, not the queue’s own tables or prose', () => {
    const root = tree({
      'offline/a.ts': [
        "const a = 'SELECT q.* FROM offline_queue q LEFT JOIN transactions t ON t.client_id = q.client_id';",
        "const b = `SELECT 1 FROM pragma_table_info('transactions') WHERE name = ${'x'}`;",
        "const c = 'CREATE TABLE x (id TEXT REFERENCES transactions (client_id))';",
        "const d = 'INSERT INTO offline_queue (client_id) VALUES (?)';",
        '// a comment about what comes FROM transactions is no SQL',
        "const e = 'the sale’s operator, as the journal keeps it';",
      ].join('\n'),
    });
    const found = journalSqlInOffline(join(root, 'offline'), ['transactions', 'audit']);
    expect(found).toHaveLength(3);
    expect(found[0]).toContain('offline/a.ts:1 names the journal table transactions');
    expect(found.map((f) => f.split(/[: ]/)[1])).toEqual(['1', '2', '3']);
  });

  it('reports a Database reachable through a member, a parameter or a result, not a plain row', () => {
    const root = tree({
      'node_modules/better-sqlite3/package.json': '{"name": "better-sqlite3", "types": "index.d.ts"}',
      'node_modules/better-sqlite3/index.d.ts': 'export interface Database { prepare(sql: string): unknown }\n',
      'payments/index.ts': [
        "import type { Database } from 'better-sqlite3';",
        'export interface Row { id: string; at: number }',
        'export interface Reports { db: Database }',
        'export interface Hook { store(db: Database, row: Row): void }',
        'export interface Deep { inner: { open(): Database } }',
        'export function rowOf(id: string): Row { return { id, at: 0 }; }',
      ].join('\n'),
      'offline/a.ts': "import { rowOf, type Row, type Reports, type Hook, type Deep } from '../payments/index.js';\n",
    });
    const found = databaseAcrossBoundary(join(root, 'offline'), join(root, 'payments'));
    expect(found.map((f) => f.replace(/^.* imports /, ''))).toEqual([
      'Reports from payments, which carries a Database at Reports.db',
      'Hook from payments, which carries a Database at Hook.store(db)',
      'Deep from payments, which carries a Database at Deep.inner.open()',
    ]);
  }, 60_000);
});
