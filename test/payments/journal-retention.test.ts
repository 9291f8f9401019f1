import Database from 'better-sqlite3';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { ensureOfflineSchema, offlineRetention } from '../../src/offline/index.js';
import { Journal, JournalPruner, scheduleFile, type NewJournalRow } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

/**
 * Journal retention (docs/journal.md, "Retention"): final sales older than the window go
 * with their operations, events and uploaded queue items, in bounded batches; anything not
 * final, needing attention or still queued offline stays however old; the file gives the
 * space back; a run with nothing old writes nothing. Real SQLite files, a clock driven by hand.
 */

const DAY = 86_400_000;
const NOW = Date.UTC(2027, 5, 1, 12);

class HandClock {
  now = NOW;
  private id = 0;
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  wall(): number {
    return this.now;
  }
  mono(): number {
    return this.now;
  }
  setTimeout(fn: () => void, ms: number): number {
    this.id += 1;
    this.timers.set(this.id, { at: this.now + ms, fn });
    return this.id;
  }
  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }
  /** Moves the clock on, firing each timer that falls due. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = end;
  }
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function setup(): { journal: Journal; clock: HandClock; dir: string } {
  const t = tempDir('retention-');
  const clock = new HandClock();
  const journal = new Journal({ dataDir: t.dir, clock });
  ensureOfflineSchema(journal.db);
  cleanups.push(() => {
    journal.close();
    t.cleanup();
  });
  return { journal, clock, dir: t.dir };
}

const EVENTS = [{ eventType: 'cardAuthorizationResult', result: 'Approved', note: 'x'.repeat(400) }];

/** A row made `daysAgo` days before NOW (its created and updated times then). */
function rowAt(
  journal: Journal,
  clock: HandClock,
  daysAgo: number,
  row: Partial<NewJournalRow> & { clientTransactionId: string },
): void {
  const saved = clock.now;
  clock.now = NOW - daysAgo * DAY;
  journal.insert({
    kind: 'sale',
    amount: 1000,
    currency: 'EUR',
    state: 'approved',
    clientDateTime: new Date(clock.now).toISOString(),
    method: 'card',
    events: EVENTS,
    ...row,
  });
  clock.now = saved;
}

function queueRow(journal: Journal, clientId: string, state: string, daysAgo: number): void {
  const at = NOW - daysAgo * DAY;
  journal.db
    .prepare(
      'INSERT INTO offline_queue (client_id, amount, currency, client_date_time, state, stored_at, updated_at) VALUES (?, 1000, ?, ?, ?, ?, ?)',
    )
    .run(clientId, 'EUR', new Date(at).toISOString(), state, at, at);
}

const ids = (journal: Journal): string[] =>
  (
    journal.db.prepare('SELECT client_id FROM transactions ORDER BY client_id').all() as Array<{ client_id: string }>
  ).map((r) => r.client_id);
const queueIds = (journal: Journal): string[] =>
  (
    journal.db.prepare('SELECT client_id FROM offline_queue ORDER BY client_id').all() as Array<{ client_id: string }>
  ).map((r) => r.client_id);

function pruner(journal: Journal, clock: HandClock, over: { batchRows?: number } = {}): JournalPruner {
  const p = new JournalPruner(journal, {
    retentionDays: 400,
    clock,
    partners: [offlineRetention(journal.db)],
    ...over,
  });
  cleanups.unshift(() => void p.stop());
  return p;
}

describe('journal retention', () => {
  it('removes a final sale past the window with its operations, events and uploaded queue item; keeps younger ones', async () => {
    const { journal, clock } = setup();
    rowAt(journal, clock, 500, { clientTransactionId: 'old-sale' });
    rowAt(journal, clock, 450, {
      clientTransactionId: 'old-refund',
      kind: 'refund',
      relatedClientTransactionId: 'old-sale',
    });
    rowAt(journal, clock, 480, { clientTransactionId: 'old-offline', offline: true });
    queueRow(journal, 'old-offline', 'uploaded', 480);
    rowAt(journal, clock, 30, { clientTransactionId: 'young-sale' });
    // Old sale, young refund: the sale's history is 100 days old, not 500.
    rowAt(journal, clock, 500, { clientTransactionId: 'old-sale-young-refund' });
    rowAt(journal, clock, 100, {
      clientTransactionId: 'young-refund',
      kind: 'refund',
      relatedClientTransactionId: 'old-sale-young-refund',
    });

    const report = await pruner(journal, clock).run();

    expect(ids(journal)).toEqual(['old-sale-young-refund', 'young-refund', 'young-sale']);
    expect(queueIds(journal)).toEqual([]);
    expect(report).toMatchObject({ rows: 3, sales: 2, partnerRows: 1 });
    // The events lived in the rows: nothing of them is left in the file.
    journal.scrub();
    expect(
      journal.db.prepare("SELECT COUNT(*) AS n FROM transactions WHERE events LIKE '%cardAuthorizationResult%'").get(),
    ).toEqual({ n: 3 });
  });

  it('never removes, however old: a sale with an open operation, needs_attention, in flight, pending, reversing, offline not uploaded', async () => {
    const { journal, clock } = setup();
    rowAt(journal, clock, 900, { clientTransactionId: 'sale-open-refund' });
    rowAt(journal, clock, 900, {
      clientTransactionId: 'open-refund',
      kind: 'refund',
      state: 'pending',
      relatedClientTransactionId: 'sale-open-refund',
    });
    rowAt(journal, clock, 900, { clientTransactionId: 'sale-refund-attention' });
    rowAt(journal, clock, 900, {
      clientTransactionId: 'refund-attention',
      kind: 'refund',
      state: 'needs_attention',
      relatedClientTransactionId: 'sale-refund-attention',
    });
    rowAt(journal, clock, 900, { clientTransactionId: 'attention', state: 'needs_attention' });
    rowAt(journal, clock, 900, { clientTransactionId: 'in-flight', state: 'in_flight' });
    rowAt(journal, clock, 900, { clientTransactionId: 'pending', state: 'pending', method: 'walletA' });
    rowAt(journal, clock, 900, { clientTransactionId: 'reversing', state: 'reversing' });
    rowAt(journal, clock, 900, { clientTransactionId: 'stored', state: 'offline_stored', offline: true });
    queueRow(journal, 'stored', 'queued', 900);
    for (const state of ['queued', 'uploading', 'needs_attention', 'declined_after_upload']) {
      // The journal row says approved, the queue item is not uploaded: the item decides.
      rowAt(journal, clock, 900, { clientTransactionId: `q-${state}`, offline: true });
      queueRow(journal, `q-${state}`, state, 900);
    }
    const before = ids(journal);

    const report = await pruner(journal, clock).run();

    expect(report.rows).toBe(0);
    expect(ids(journal)).toEqual(before);
    expect(queueIds(journal)).toEqual([
      'q-declined_after_upload',
      'q-needs_attention',
      'q-queued',
      'q-uploading',
      'stored',
    ]);
  });

  it('removes at most batchRows rows per transaction, a sale always together with its operations', () => {
    const { journal, clock } = setup();
    for (let i = 0; i < 120; i++) {
      const id = `s-${String(i).padStart(3, '0')}`;
      rowAt(journal, clock, 600 - i, { clientTransactionId: id });
      // Every tenth sale carries three operations.
      if (i % 10 === 0)
        for (let k = 0; k < 3; k++)
          rowAt(journal, clock, 600 - i, {
            clientTransactionId: `${id}-op${k}`,
            kind: 'refund',
            amount: 100,
            relatedClientTransactionId: id,
          });
    }
    const total = ids(journal).length;
    const p = pruner(journal, clock, { batchRows: 25 });
    const cutoff = p.cutoff();
    const perBatch: number[] = [];
    for (;;) {
      const b = p.pruneBatch(cutoff);
      perBatch.push(b.rows);
      const orphans = journal.db
        .prepare(
          'SELECT COUNT(*) AS n FROM transactions o WHERE o.related_client_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions s WHERE s.client_id = o.related_client_id)',
        )
        .get() as { n: number };
      expect(orphans.n).toBe(0);
      if (b.done) break;
    }
    expect(Math.max(...perBatch)).toBeLessThanOrEqual(25);
    expect(perBatch.reduce((a, b) => a + b, 0)).toBe(total);
    expect(perBatch.filter((n) => n > 0).length).toBeGreaterThanOrEqual(Math.ceil(total / 25));
    expect(ids(journal)).toEqual([]);
  });

  it('gives the space back: page_count and the file shrink after a prune with incremental vacuum', async () => {
    const { journal, clock } = setup();
    expect(journal.db.pragma('auto_vacuum', { simple: true })).toBe(2);
    for (let i = 0; i < 600; i++) rowAt(journal, clock, 800, { clientTransactionId: `old-${i}` });
    for (let i = 0; i < 20; i++) rowAt(journal, clock, 5, { clientTransactionId: `new-${i}` });
    journal.scrub();
    const pagesBefore = journal.db.pragma('page_count', { simple: true }) as number;
    const bytesBefore = statSync(journal.file).size;

    const report = await pruner(journal, clock, { batchRows: 100 }).run();

    const pagesAfter = journal.db.pragma('page_count', { simple: true }) as number;
    expect(report.rows).toBe(600);
    expect(report.pagesFreed).toBeGreaterThan(0);
    expect(pagesAfter).toBeLessThan(pagesBefore / 4);
    expect(statSync(journal.file).size).toBeLessThan(bytesBefore / 4);
    expect(journal.db.pragma('freelist_count', { simple: true })).toBe(0);
  });

  it('an older journal without incremental vacuum is switched at open (small file: one VACUUM), its rows kept', () => {
    const t = tempDir('retention-switch-');
    cleanups.push(t.cleanup);
    const first = new Journal({ dataDir: t.dir });
    for (let i = 0; i < 50; i++)
      first.insert({
        clientTransactionId: `r-${i}`,
        kind: 'sale',
        amount: 100,
        currency: 'EUR',
        state: 'approved',
        clientDateTime: '2026-01-01T00:00:00.000Z',
      });
    // As a journal made before retention: auto_vacuum NONE.
    first.db.pragma('auto_vacuum = NONE');
    first.db.exec('VACUUM');
    expect(first.db.pragma('auto_vacuum', { simple: true })).toBe(0);
    first.close();

    const again = new Journal({ dataDir: t.dir });
    expect(again.db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(again.list().length).toBe(50);
    again.close();

    // Above the bound the file is left as it is (journal compact, with the agent stopped).
    const big = new Database(`${t.dir}/journal.sqlite`);
    big.pragma('auto_vacuum = NONE');
    big.exec('VACUUM');
    big.close();
    const kept = new Journal({ dataDir: t.dir, compactMaxBytes: 1024 });
    expect(kept.db.pragma('auto_vacuum', { simple: true })).toBe(0);
    kept.close();
  });

  it('the scheduled job does nothing while nothing is old: no commit, no schedule of its own in the database', async () => {
    const { journal, clock } = setup();
    for (let i = 0; i < 30; i++) rowAt(journal, clock, 399, { clientTransactionId: `r-${i}` });
    rowAt(journal, clock, 900, { clientTransactionId: 'attention', state: 'needs_attention' });
    journal.scrub();
    const watcher = new Database(journal.file, { readonly: true });
    cleanups.unshift(() => watcher.close());
    const version = (): number => watcher.pragma('data_version', { simple: true }) as number;
    const v0 = version();
    const wal0 = statSync(`${journal.file}-wal`).size;

    const p = pruner(journal, clock);
    p.start();
    expect(p.nextRunAt()).toBe(NOW + 10 * 60_000);
    clock.advance(10 * 60_000);
    const report = await p.run();

    expect(report.rows).toBe(0);
    expect(version()).toBe(v0);
    expect(statSync(`${journal.file}-wal`).size).toBe(wal0);
    expect(ids(journal).length).toBe(31);
    // Next run a few hours on; the schedule file beside the journal says when.
    await until(
      'the next run scheduled',
      () => p.nextRunAt(),
      (at) => at !== undefined,
    );
    expect(p.nextRunAt()).toBe(NOW + 10 * 60_000 + 6 * 3_600_000);
    const schedule = JSON.parse(readFileSync(scheduleFile(journal.file), 'utf8')) as {
      nextPruneAt: string;
      retentionDays: number;
      pid: number;
    };
    expect(schedule).toMatchObject({
      nextPruneAt: new Date(NOW + 10 * 60_000 + 6 * 3_600_000).toISOString(),
      retentionDays: 400,
      pid: process.pid,
    });
  });

  it('journal.retentionDays: default 400, 0 keeps everything, 1 to 30 refused', () => {
    expect(configSchema.parse({}).journal.retentionDays).toBe(400);
    expect(configSchema.parse({ journal: { retentionDays: 0 } }).journal.retentionDays).toBe(0);
    expect(configSchema.parse({ journal: { retentionDays: 31 } }).journal.retentionDays).toBe(31);
    for (const d of [1, 30, -1, 1.5])
      expect(() => configSchema.parse({ journal: { retentionDays: d } }), String(d)).toThrow();
  });

  it('retention 0 keeps everything: nothing is scheduled', async () => {
    const { journal, clock } = setup();
    rowAt(journal, clock, 5000, { clientTransactionId: 'ancient' });
    const p = new JournalPruner(journal, { retentionDays: 0, clock, partners: [offlineRetention(journal.db)] });
    p.start();
    expect(p.nextRunAt()).toBeUndefined();
    expect(clock.timers.size).toBe(0);
    expect((await p.run()).rows).toBe(0);
    expect(ids(journal)).toEqual(['ancient']);
    expect(existsSync(scheduleFile(journal.file))).toBe(true);
  });
});
