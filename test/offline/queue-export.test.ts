import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  csvChunks,
  EXPORT_CHUNK_ROWS,
  exportRow,
  jsonChunks,
  OfflineQueue,
  toCsv,
  toJson,
  type QueueItem,
} from '../../src/offline/index.js';
import { runCli } from '../helpers/cli.js';
import { localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';

let f: LocalFixture | undefined;
afterEach(() => {
  f?.close();
  f = undefined;
});

/** `n` uploaded sales, journal rows and queue items, written straight into the file (one transaction). */
function fillQueue(fx: LocalFixture, n: number): void {
  const db = fx.journal.db;
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < @n)
       INSERT INTO transactions (client_id, kind, amount, currency, state, client_date_time, offline, created_at, updated_at)
       SELECT printf('big-%06d', k), 'sale', 100 + k, 'EUR', 'approved', '2026-03-01T10:00:00.000Z', 1, '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z' FROM i`,
    ).run({ n });
    db.prepare(
      `WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < @n)
       INSERT INTO offline_queue (client_id, amount, currency, client_date_time, masked_pan, scheme, entry_mode, body, state, tries, history, server_id, platform_status, stored_at, updated_at)
       SELECT printf('big-%06d', k), 100 + k, 'EUR', '2026-03-01T10:00:00.000Z', '476173******0010', 'visa', 'ContactlessChip', NULL, 'uploaded', 1,
              '[{"at":"2026-03-01T11:00:00.000Z","outcome":"accepted","message":"platform status Accepted"}]', printf('srv-%06d', k), 'Accepted', 1772359200000 + k, 1772359200000 + k FROM i`,
    ).run({ n });
  })();
}

describe('queue export', () => {
  it('streams the same bytes as the whole-document export, empty or not', async () => {
    f = localFixture({ maxCount: 100 });
    const queue = new OfflineQueue(f.journal.db);
    const at = '2026-03-02T10:00:00.000Z';
    expect([...jsonChunks([], at)].join('')).toBe(`${JSON.stringify({ exportedAt: at, items: [] }, null, 2)}\n`);
    for (const id of ['e-1', 'e-2', 'e-3']) storeOfflineSale(f.journal, f.offline, { id, amount: 700 });
    const items = queue.list();
    expect(items).toHaveLength(3);
    const whole = `${JSON.stringify({ exportedAt: at, items: items.map((i) => ({ ...exportRow(i), history: i.history })) }, null, 2)}\n`;
    expect([...jsonChunks(queue.iterate(), at, 2)].join('')).toBe(whole);
    expect(toJson(items, at)).toBe(whole);
    expect([...csvChunks(queue.iterate(), 2)].join('')).toBe(toCsv(items));
    expect(toCsv(items).split('\r\n')).toHaveLength(5);
  });

  it('reads a large queue a chunk at a time, never the whole of it at once', () => {
    f = localFixture({ maxCount: 100 });
    fillQueue(f, 5_000);
    let read = 0;
    const counted = (function* (items: Iterable<QueueItem>): Generator<QueueItem> {
      for (const i of items) {
        read += 1;
        yield i;
      }
    })(new OfflineQueue(f.journal.db).iterate());
    const chunks = csvChunks(counted);
    const first = chunks.next();
    expect(first.done).toBe(false);
    // The header and the rows of the first chunk: no more of the queue was read to write them.
    expect(read).toBeLessThanOrEqual(EXPORT_CHUNK_ROWS);
    expect(
      String(first.value)
        .split('\r\n')
        .filter((l) => l !== ''),
    ).toHaveLength(EXPORT_CHUNK_ROWS);
    let rest = 0;
    for (const c of chunks) rest += c.split('\r\n').filter((l) => l !== '').length;
    expect(read).toBe(5_000);
    expect(rest + EXPORT_CHUNK_ROWS).toBe(5_001);
  });

  it('exports a queue of 30,000 sales completely, in store order, as CSV and JSON', async () => {
    f = localFixture({ maxCount: 100 });
    fillQueue(f, 30_000);
    const flags = ['--data-dir', join(f.dir, 'data')];
    const csvFile = join(f.dir, 'big.csv');
    expect(await runCli([...flags, 'queue', 'export', '--format', 'csv', '--output', csvFile])).toMatchObject({
      code: 0,
      stdout: `exported to ${csvFile}\n`,
    });
    expect(statSync(csvFile).mode & 0o777).toBe(0o600);
    const lines = readFileSync(csvFile, 'utf8').split('\r\n');
    expect(lines).toHaveLength(30_002);
    expect(lines[1]).toMatch(/^big-000000,srv-000000,/);
    expect(lines[30_000]).toMatch(/^big-029999,srv-029999,/);
    const jsonFile = join(f.dir, 'big.json');
    const json = await runCli([...flags, 'queue', 'export', '--format', 'json', '--output', jsonFile, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ output: jsonFile, format: 'json', count: 30_000 });
    const doc = JSON.parse(readFileSync(jsonFile, 'utf8')) as {
      items: Array<{ clientTransactionId: string; history: unknown[] }>;
    };
    expect(doc.items).toHaveLength(30_000);
    expect(doc.items[29_999]).toMatchObject({ clientTransactionId: 'big-029999', history: [{ outcome: 'accepted' }] });
    const stdout = await runCli([...flags, 'queue', 'export', '--state', 'uploaded']);
    expect(stdout.stdout.split('\r\n')).toHaveLength(30_002);
  }, 60_000);
});
