import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

describe('the journal list, page by page', () => {
  it('gives every row exactly once, newest first, also when rows share a creation time and new ones arrive between pages', () => {
    const { dir, cleanup } = tempDir('journal-paging-');
    cleanups.push(cleanup);
    let now = Date.parse('2026-11-26T09:00:00.000Z');
    // Three rows per millisecond: the order within a tie is the insertion order.
    const journal = new Journal({ dataDir: join(dir, 'data'), clock: { wall: () => now } });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      if (i % 3 === 0) now += 1;
      const id = `t-${String(i).padStart(2, '0')}`;
      journal.insert({
        clientTransactionId: id,
        kind: 'sale',
        amount: 100 + i,
        currency: 'EUR',
        state: 'approved',
        clientDateTime: new Date(now).toISOString(),
        method: 'card',
      });
      ids.push(id);
    }
    const seen: string[] = [];
    let after: { createdAt: string; clientTransactionId: string } | undefined;
    for (let page = 0; page < 10; page++) {
      const rows = journal.list({ limit: 3, ...(after !== undefined ? { after } : {}) });
      seen.push(...rows.map((r) => r.clientTransactionId));
      if (page === 0) {
        // A sale arriving now is newer than every page still to come: it never shows up in them.
        now += 10;
        journal.insert({
          clientTransactionId: 'late',
          kind: 'sale',
          amount: 1,
          currency: 'EUR',
          state: 'approved',
          clientDateTime: new Date(now).toISOString(),
          method: 'card',
        });
      }
      const last = rows.at(-1);
      if (rows.length < 3 || last === undefined) break;
      after = { createdAt: last.createdAt, clientTransactionId: last.clientTransactionId };
    }
    expect(seen).toEqual([...ids].reverse());
    journal.close();
  });
});
