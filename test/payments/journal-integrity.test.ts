import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkJournal, Journal } from '../../src/payments/journal/index.js';
import { errorOf } from '../helpers/agent-error.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Integrity at start (docs/journal.md, "Journal"): real SQLite files damaged the ways
 * a power cut, a bad card or a careless hand damages them. A damaged or emptied journal is
 * refused with one line naming the file and what to do, and is kept exactly as found.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function dataDir(): string {
  const t = tempDir('journal-integrity-');
  cleanups.push(t.cleanup);
  return join(t.dir, 'data');
}

/** A journal with `n` sales, closed (its write-ahead log checkpointed into the file). */
function journalWithSales(dir: string, n = 200): string {
  const journal = new Journal({ dataDir: dir });
  journal.transaction(() => {
    for (let i = 0; i < n; i++) {
      journal.insert({
        clientTransactionId: `c-${i}`,
        kind: 'sale',
        amount: 1000 + i,
        currency: 'EUR',
        state: 'approved',
        clientDateTime: '2026-01-01T10:00:00.000Z',
        method: 'card',
        message: 'approved: a message long enough that the rows fill several pages of the file',
      });
    }
  });
  const file = journal.file;
  journal.close();
  return file;
}

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The refusal: JOURNAL_DAMAGED, one line, naming the file, saying what to do and not to delete it. */
function expectRefusal(dir: string, file: string, what: RegExp): void {
  const err = errorOf(() => new Journal({ dataDir: dir }));
  expect(err.code).toBe('JOURNAL_DAMAGED');
  expect(err.message).not.toContain('\n');
  expect(err.message).toContain(file);
  expect(err.message).toMatch(what);
  expect(err.message).toMatch(/move the journal's files aside/);
  expect(err.message).toMatch(/never delete them/);
  expect(err.message).toMatch(/backup/);
}

describe('journal integrity at open', () => {
  it('a garbage page in the transactions table: refused, naming the file; the file is kept byte for byte', () => {
    const dir = dataDir();
    const file = journalWithSales(dir);
    const pageSize = readFileSync(file).readUInt16BE(16);
    // The root of the transactions table (page 2 before incremental vacuum put a pointer-map page there).
    const reader = new Database(file, { readonly: true });
    const { rootpage } = reader.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'transactions'").get() as {
      rootpage: number;
    };
    reader.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const before = digest(file);
    expectRefusal(dir, file, /is damaged \(SQLite's check found: .*page/);
    expect(digest(file)).toBe(before);
    expect(checkJournal(file)).toMatchObject({ state: 'damaged', checked: 'full' });
  });

  it('a zero-length journal where one was kept: refused as emptied, not started with an empty history and queue', () => {
    const dir = dataDir();
    const file = journalWithSales(dir);
    truncateSync(file, 0);
    expectRefusal(dir, file, /was emptied \(the journal file is empty \(0 bytes\)/);
    expect(statSync(file).size).toBe(0);
  });

  it('a zero-length journal from an install without a marker: emptied when the data directory has other traces', () => {
    const dir = dataDir();
    const file = journalWithSales(dir);
    rmSync(`${file}.marker`);
    truncateSync(file, 0);
    writeFileSync(join(dir, 'local-api.token'), 'x'.repeat(43), { mode: 0o600 });
    expectRefusal(dir, file, /was emptied \(.*data directory an agent has used \(local-api.token\)/);
  });

  it('a missing journal where one was kept: refused as emptied; without the marker it is a new data directory', () => {
    const dir = dataDir();
    const file = journalWithSales(dir, 1);
    rmSync(file);
    expectRefusal(dir, file, /was emptied \(the journal file is missing/);
    expect(existsSync(file)).toBe(false);
    rmSync(`${file}.marker`);
    const fresh = new Journal({ dataDir: dir });
    cleanups.push(() => fresh.close());
    expect(fresh.list()).toEqual([]);
  });

  it('a journal file holding no tables where one was kept: refused as emptied', () => {
    const dir = dataDir();
    const file = journalWithSales(dir, 1);
    rmSync(file);
    // A new, empty SQLite database in its place.
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.close();
    expectRefusal(dir, file, /was emptied \(it holds no journal tables/);
  });

  it('a truncated journal: refused, naming the file and what was found', () => {
    const dir = dataDir();
    const file = journalWithSales(dir, 400);
    const size = statSync(file).size;
    const pageSize = readFileSync(file).readUInt16BE(16);
    truncateSync(file, Math.floor(size / pageSize / 2) * pageSize);
    const before = digest(file);
    expectRefusal(dir, file, /is damaged \(truncated: its header records \d+ pages, the file holds \d+\)/);
    expect(digest(file)).toBe(before);
    // Cut in the middle of a page: named as such.
    truncateSync(file, Math.floor(size / 2) + 100);
    expectRefusal(dir, file, /is damaged \(its size \(\d+ bytes\) is not a whole number of \d+-byte pages/);
  });

  it('not a SQLite file at all: refused', () => {
    const dir = dataDir();
    const file = journalWithSales(dir, 1);
    writeFileSync(file, 'this is not a database, someone copied a log over it\n'.repeat(100));
    expectRefusal(dir, file, /is damaged \(not a SQLite database/);
  });

  it('a sound journal opens with its rows, and a first start on an empty directory is fine', () => {
    const dir = dataDir();
    const file = journalWithSales(dir, 3);
    expect(checkJournal(file)).toMatchObject({
      state: 'ok',
      checked: 'full',
      rows: { approved: 3 },
      cardDataRows: 0,
      markerPresent: true,
    });
    const reopened = new Journal({ dataDir: dir });
    cleanups.push(() => reopened.close());
    expect(reopened.list()).toHaveLength(3);
    // Above the check bound: header, size and schema only, and the report says so.
    expect(checkJournal(file, { maxCheckBytes: 1 })).toMatchObject({ state: 'ok', checked: 'header' });
    // A data directory with nothing but a zero-length journal (a first start that stopped at once).
    const other = dataDir();
    const first = new Journal({ dataDir: other });
    first.close();
    rmSync(`${first.file}.marker`);
    truncateSync(first.file, 0);
    for (const f of [`${first.file}-wal`, `${first.file}-shm`]) rmSync(f, { force: true });
    const again = new Journal({ dataDir: other });
    cleanups.push(() => again.close());
    expect(again.list()).toEqual([]);
  });

  it('the agent refuses to start on a damaged journal (it would have served /readyz 200 and answered every sale 500)', async () => {
    const dir = dataDir();
    const file = journalWithSales(dir);
    const pageSize = readFileSync(file).readUInt16BE(16);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, pageSize);
    closeSync(fd);
    const before = digest(file);
    const err = await startTestAgent({ flags: { dataDir: dir } }).then(
      async (running) => {
        await running.stop();
        return undefined;
      },
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err?.code).toBe('JOURNAL_DAMAGED');
    expect(err?.message).toContain(file);
    expect(digest(file)).toBe(before);
  }, 30_000);
});
