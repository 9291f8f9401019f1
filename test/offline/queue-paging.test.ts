import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/core/errors.js';
import { listQuery, OfflineQueue } from '../../src/offline/queue.js';
import { ensureOfflineSchema, QUEUE_STATES, type QueueItem, type QueueState } from '../../src/offline/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';

/**
 * The queue's list in pages (docs/local-api.md, "Paging"): keyset pages in the queue's own
 * order (stored_at, rowid), on a real journal file.
 */

let f: LocalFixture | undefined;
afterEach(() => {
  f?.close();
  f = undefined;
});

const ids = (items: QueueItem[]): string[] => items.map((i) => i.clientTransactionId);

/** Every page of `opts` from the start, storing what `between` stores after each page is read. */
function allPages(
  list: (after?: string) => QueueItem[],
  limit: number,
  between: (page: number) => void = () => {},
): { pages: string[][] } {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const rows = list(after);
    const page = rows.slice(0, limit);
    pages.push(ids(page));
    between(pages.length);
    if (rows.length <= limit) return { pages };
    after = page.at(-1)?.clientTransactionId;
    if (pages.length > 50) throw new Error('paging does not end');
  }
}

describe('offline queue pages', () => {
  it('pages oldest first; sales stored between the pages (some in the same millisecond) are listed once, none skipped', () => {
    f = localFixture();
    const fx = f;
    // Seven sales over three store times, two of them shared: the rowid orders within a millisecond.
    const times = [0, 0, 0, 5, 5, 9, 9];
    times.forEach((dt, i) => {
      fx.clock.now = Date.parse('2026-03-02T10:00:00Z') + dt;
      storeOfflineSale(fx.journal, fx.offline, { id: `p-${i}` });
    });
    let extra = 0;
    const { pages } = allPages(
      (after) => fx.offline.list({ limit: 3 + 1, ...(after !== undefined ? { after } : {}) }),
      3,
      () => {
        // After each page read, a sale in the last millisecond so far (ties the cursor's time) and a later one.
        if (extra >= 4) return;
        storeOfflineSale(fx.journal, fx.offline, { id: `late-${extra++}` });
        fx.clock.now += 1;
        storeOfflineSale(fx.journal, fx.offline, { id: `late-${extra++}` });
      },
    );
    const seen = pages.flat();
    expect(pages.every((p) => p.length <= 3)).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    // Everything stored, in the queue's order: what a list of the whole queue says now.
    expect(seen).toEqual(ids(fx.offline.list()));
    expect(seen).toEqual(['p-0', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6', 'late-0', 'late-1', 'late-2', 'late-3']);
  });

  it('the states filter goes with `after`, even when the item named has left those states meanwhile', async () => {
    f = localFixture(
      { maxAttempts: 1 },
      {
        isAvailable: async () => true,
        process: async (body) => ({
          serverTransactionId: `srv-${body.clientNewTransactionId}`,
          transactionStatus: 'Captured',
          events: [],
        }),
        status: () => Promise.reject(new Error('not used')),
      },
    );
    const fx = f;
    for (let i = 0; i < 4; i++) {
      fx.clock.now += 1_000;
      storeOfflineSale(fx.journal, fx.offline, { id: `s-${i}` });
    }
    await fx.offline.uploader.flush();
    for (let i = 4; i < 8; i++) {
      fx.clock.now += 1_000;
      storeOfflineSale(fx.journal, fx.offline, { id: `s-${i}` });
    }
    const queued: readonly QueueState[] = ['queued'];
    const first = fx.offline.list({ states: queued, limit: 2 });
    expect(ids(first)).toEqual(['s-4', 's-5']);
    // s-5 is uploaded before the next page is asked for: the page still starts after it.
    await fx.offline.uploader.flush();
    storeOfflineSale(fx.journal, fx.offline, { id: 's-8' });
    expect(ids(fx.offline.list({ states: queued, after: 's-5', limit: 10 }))).toEqual(['s-8']);
    expect(ids(fx.offline.list({ states: ['uploaded'], after: 's-1', limit: 3 }))).toEqual(['s-2', 's-3', 's-4']);
    expect(ids(fx.offline.list({ states: ['uploaded', 'queued'], after: 's-6', limit: 5 }))).toEqual(['s-7', 's-8']);
    // An item before the page's start in another state is not listed (s-0..s-3 are uploaded).
    expect(ids(fx.offline.list({ after: 's-2', limit: 2 }))).toEqual(['s-3', 's-4']);
    // Without a limit (an export) `after` applies too.
    expect(ids(fx.offline.list({ states: ['uploaded'], after: 's-3' }))).toEqual(['s-4', 's-5', 's-6', 's-7']);
  });

  it('an `after` the queue does not hold is refused with a message naming it', () => {
    f = localFixture();
    storeOfflineSale(f.journal, f.offline, { id: 'known-1' });
    let err: unknown;
    try {
      f.offline.list({ after: 'gone-1', limit: 5 });
    } catch (e) {
      err = e;
    }
    expect(isAgentError(err) && err.code).toBe('INPUT_INVALID');
    expect((err as Error).message).toBe(
      'after: no offline sale gone-1 in the queue (pass the `next` of the page before)',
    );
    // A long id is named by its first 80 characters only.
    const long = `x${'y'.repeat(300)}`;
    expect(() => f?.offline.list({ after: long, limit: 5 })).toThrow(
      `after: no offline sale ${long.slice(0, 80)} in the queue`,
    );
  });

  it('counts what is left after an item, in the states asked, and the whole list without one', () => {
    f = localFixture();
    const fx = f;
    for (let i = 0; i < 5; i++) {
      fx.clock.now += 10;
      storeOfflineSale(fx.journal, fx.offline, { id: `c-${i}` });
    }
    // A second queue over the journal's connection, as the CLI opens one read-only.
    const q = new OfflineQueue(fx.journal.db);
    expect(q.count()).toBe(5);
    expect(q.count({ states: ['queued'], after: 'c-1' })).toBe(3);
    expect(q.count({ states: ['uploaded'], after: 'c-1' })).toBe(0);
    expect(q.count({ states: ['uploaded'] })).toBe(0);
    expect(q.count({ after: 'c-4' })).toBe(0);
  });
});

describe('offline queue pages, edge cases', () => {
  it('no states asked lists nothing in a page too; a page of a file an older agent left (no counts, no operators)', () => {
    f = localFixture();
    const fx = f;
    storeOfflineSale(fx.journal, fx.offline, { id: 'e-1' });
    fx.clock.now += 1;
    storeOfflineSale(fx.journal, fx.offline, { id: 'e-2' });
    expect(fx.offline.list({ states: [], limit: 5 })).toEqual([]);
    expect(fx.offline.list({ states: [], after: 'e-1', limit: 5 })).toEqual([]);
    expect(new OfflineQueue(fx.journal.db).count({ states: [] })).toBe(0);

    const { dir, cleanup } = tempDir('queue-old-page-');
    const db = new Database(join(dir, 'old.sqlite'));
    try {
      db.exec('CREATE TABLE transactions (client_id TEXT PRIMARY KEY)');
      ensureOfflineSchema(db);
      db.exec(
        'DROP TRIGGER offline_counts_insert; DROP TRIGGER offline_counts_delete; DROP TRIGGER offline_counts_update; DROP TABLE offline_counts;',
      );
      for (const [i, at] of [
        [1, 5],
        [2, 5],
        [3, 7],
      ] as const) {
        db.prepare('INSERT INTO transactions (client_id) VALUES (?)').run(`old-${i}`);
        db.prepare(
          "INSERT INTO offline_queue (client_id, amount, currency, client_date_time, state, stored_at, updated_at) VALUES (?, 100, 'EUR', 'x', 'queued', ?, ?)",
        ).run(`old-${i}`, at, at);
      }
      const old = new OfflineQueue(db);
      expect(ids(old.list({ limit: 1 }))).toEqual(['old-1']);
      expect(ids(old.list({ after: 'old-1', limit: 5 }))).toEqual(['old-2', 'old-3']);
      expect(old.list({ after: 'old-1', limit: 5 })[0]).not.toHaveProperty('operator');
      expect(old.count({ after: 'old-1' })).toBe(2);
      expect(old.count({ states: ['queued'] })).toBe(3);
    } finally {
      db.close();
      cleanup();
    }
  });
});

describe('offline queue page query plan', () => {
  it('with 30,000 uploaded sales a page of any states seeks the (state, stored_at) index, never scans the table', () => {
    f = localFixture();
    const fx = f;
    storeOfflineSale(fx.journal, fx.offline, { id: 'seed-1' });
    const db = fx.journal.db;
    const cols = (
      db.prepare("SELECT name FROM pragma_table_info('transactions')").all() as Array<{ name: string }>
    ).map((c) => c.name);
    const qcols = (
      db.prepare("SELECT name FROM pragma_table_info('offline_queue')").all() as Array<{ name: string }>
    ).map((c) => c.name);
    // Copies of the seed's rows under new ids, uploaded, in one transaction (a bulk insert, not 30,000 sales).
    const copyTx = db.prepare(
      `INSERT INTO transactions (${cols.join(', ')}) SELECT ${cols.map((c) => (c === 'client_id' ? '@id' : c)).join(', ')} FROM transactions WHERE client_id = 'seed-1'`,
    );
    const copyQ = db.prepare(
      `INSERT INTO offline_queue (${qcols.join(', ')}) SELECT ${qcols
        .map((c) =>
          c === 'client_id'
            ? '@id'
            : c === 'state'
              ? "'uploaded'"
              : c === 'body'
                ? 'NULL'
                : c === 'stored_at'
                  ? '@at'
                  : c,
        )
        .join(', ')} FROM offline_queue WHERE client_id = 'seed-1'`,
    );
    db.transaction(() => {
      for (let i = 0; i < 30_000; i++) {
        copyTx.run({ id: `u-${i}` });
        copyQ.run({ id: `u-${i}`, at: i });
      }
    })();
    const plan = (q: { sql: string; params: Record<string, number> }): string[] =>
      (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(q.params) as Array<{ detail: string }>).map((r) => r.detail);
    for (const states of [
      QUEUE_STATES,
      ['uploaded'],
      ['queued', 'needs_attention', 'declined_after_upload', 'uploading'],
    ] as Array<readonly QueueState[]>) {
      for (const cursor of [undefined, { at: 100, rowid: 101 }]) {
        const lines = plan(listQuery({ states, limit: 101, ...(cursor !== undefined ? { cursor } : {}) }));
        const reads = lines.filter((l) => /offline_queue/.test(l));
        expect(reads.length, lines.join('\n')).toBe(states.length);
        for (const l of reads)
          expect(l, lines.join('\n')).toMatch(
            /^SEARCH offline_queue USING INDEX offline_queue_state \(state=\?( AND stored_at>\?)?\)$/,
          );
      }
    }
    // And it answers right: the 100 oldest uploaded sales after u-99; the default page of the waiting ones.
    const page = fx.offline.list({ states: ['uploaded'], after: 'u-99', limit: 100 });
    expect(ids(page)).toEqual(Array.from({ length: 100 }, (_, i) => `u-${100 + i}`));
    expect(ids(fx.offline.list({ limit: 3 }))).toEqual(['u-0', 'u-1', 'u-2']);
    expect(ids(fx.offline.list({ states: ['queued'], limit: 100 }))).toEqual(['seed-1']);
    expect(new OfflineQueue(db).count({ states: ['uploaded'], after: 'u-29989' })).toBe(10);
  });
});
