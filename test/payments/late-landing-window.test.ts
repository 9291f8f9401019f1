import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, listQuery } from '../../src/payments/journal/journal.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import {
  lateLandingIntervalCap,
  lateLandingResumeSince,
  lateLandingWatchEnd,
} from '../../src/payments/late-landing.js';
import { useDemoPlatform } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * The late-landing watch lasts as long as the platform's window for the sale
 * (docs/payments.md, "Unknown outcome: resolution and reversal", step 3): a wallet sale
 * until its cancel window ends, a card sale payments.lateLandingWatchMs (24 h) after the
 * sale; looked at with a growing interval; resumed at start for rows counted as not done
 * within the window, read with a bounded query.
 */
const fixture = useDemoPlatform();
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups.splice(0)) c();
});

const HOUR = 3_600_000;
const sale = (method: string, clientDateTime: string): JournalRow =>
  ({ method, clientDateTime, createdAt: clientDateTime }) as unknown as JournalRow;

describe('how long a sale counted as not done is watched', () => {
  it('card: lateLandingWatchMs after the sale (the spec names no window); walletA: until 00:15 UTC+8 the next day; walletB: 24 h; 0: off', () => {
    const at = '2026-03-10T10:00:00.000Z';
    expect(lateLandingWatchEnd(sale('card', at), 24 * HOUR)).toBe(Date.parse(at) + 24 * HOUR);
    // 10:00 UTC is 18:00 UTC+8: the window ends at 00:15 UTC+8 on the 11th, 16:15 UTC on the 10th.
    expect(new Date(lateLandingWatchEnd(sale('walletA', at), 24 * HOUR) ?? 0).toISOString()).toBe(
      '2026-03-10T16:15:00.000Z',
    );
    expect(lateLandingWatchEnd(sale('walletB', at), 10 * 60_000)).toBe(Date.parse(at) + 24 * HOUR);
    expect(lateLandingWatchEnd(sale('card', at), 0)).toBeUndefined();
  });

  it('the interval grows with the time watched: 30 s at first, at most 10 min', () => {
    expect(lateLandingIntervalCap(0)).toBe(30_000);
    expect(lateLandingIntervalCap(20 * 60_000)).toBe(120_000);
    expect(lateLandingIntervalCap(5 * HOUR)).toBe(600_000);
  });

  it('the resume query reads only rows updated within the longest window, through the (state, updated_at) index', () => {
    const dir = tempDir('late-window-');
    cleanups.push(dir.cleanup);
    const journal = new Journal({ dataDir: join(dir.dir, 'data') });
    try {
      const since = new Date(lateLandingResumeSince(Date.parse('2026-03-10T10:00:00.000Z'), 24 * HOUR)).toISOString();
      expect(since).toBe('2026-03-09T09:00:00.000Z');
      const { sql, params } = listQuery({ states: ['failed'], kind: 'sale', updatedAfter: since });
      const plan = (journal.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join('; ');
      expect(plan).toMatch(/USING INDEX transactions_state_updated \(state=\? AND updated_at>\?\)/);
    } finally {
      journal.close();
    }
  });
});

describe('a write held longer than the old fixed 10 minutes', () => {
  it('a sale counted as not done 3 hours ago is still watched after a restart, and reversed when it lands', async () => {
    const config = { payments: { lookupGraceMs: 300, lateLandingWatchMs: 24 * HOUR } };
    const dir = tempDir('late-landing-long-');
    cleanups.push(dir.cleanup);
    const dataDir = join(dir.dir, 'data');
    const first = await fixture.startTerminal({ headersTimeoutMs: 800, config, dataDir });
    fixture.demo.platform.faults.set('process', { recordAfterMs: 3_000, times: 1 });
    const started = await first.service.startSale({ method: 'card', amount: 2_100, currency: 'EUR' });
    expect((await started.done).state).toBe('failed');
    await first.close();
    // As if the sale had been counted as not done three hours ago (the request held on the way since).
    const db = new Database(join(dataDir, 'journal.sqlite'));
    const earlier = new Date(Date.now() - 3 * HOUR).toISOString();
    db.prepare('UPDATE transactions SET client_date_time = ?, created_at = ?, updated_at = ? WHERE client_id = ?').run(
      earlier,
      earlier,
      earlier,
      started.clientTransactionId,
    );
    db.close();
    const t = await fixture.startTerminal({ headersTimeoutMs: 800, config, dataDir });
    await t.service.recover();
    await until(
      `${started.clientTransactionId} reversed`,
      () => t.journal.get(started.clientTransactionId)?.state,
      (state) => state === 'reversed',
      { timeoutMs: 15_000, everyMs: 100 },
    );
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
  }, 30_000);
});
