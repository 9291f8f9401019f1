import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/index.js';
import { EventBus } from '../../src/events/index.js';
import { createOffline, OFFLINE_SCHEMA_VERSION, OfflineQueue, type QueueItem } from '../../src/offline/index.js';
import { JournalWriter, offlineSaleReports } from '../../src/payments/index.js';
import { Journal, withOperator } from '../../src/payments/journal/index.js';
import { offlineConfig, processBody, storeOfflineSale } from '../helpers/offline-sales.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

// The queue's schema version 3 on a real journal file an agent with queue schema version 2
// left (docs/offline.md, "Offline and payments"): every item kept as it was, each with its
// sale's operator, and no foreign key from the queue to the journal.

/** The queue's tables as queue schema version 2 declares them, foreign key to the journal included. */
const QUEUE_SCHEMA_2 = `
  CREATE TABLE offline_queue (
    client_id          TEXT PRIMARY KEY REFERENCES transactions (client_id),
    merchant_id        TEXT,
    amount             INTEGER NOT NULL CHECK (amount > 0),
    currency           TEXT NOT NULL,
    client_date_time   TEXT NOT NULL,
    masked_pan         TEXT,
    scheme             TEXT,
    entry_mode         TEXT,
    body               TEXT,
    state              TEXT NOT NULL CHECK (state IN ('queued', 'uploading', 'uploaded', 'declined_after_upload', 'needs_attention')),
    rejections         INTEGER NOT NULL DEFAULT 0,
    tries              INTEGER NOT NULL DEFAULT 0,
    history            TEXT NOT NULL DEFAULT '[]',
    server_id          TEXT,
    platform_status    TEXT,
    message            TEXT,
    stored_at          INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    last_try_at        INTEGER
  ) STRICT;
  CREATE INDEX offline_queue_state ON offline_queue (state, stored_at);
  CREATE TABLE offline_counts (
    state     TEXT NOT NULL,
    currency  TEXT NOT NULL,
    n         INTEGER NOT NULL,
    total     INTEGER NOT NULL,
    PRIMARY KEY (state, currency)
  ) STRICT, WITHOUT ROWID;
  CREATE TRIGGER offline_counts_insert AFTER INSERT ON offline_queue BEGIN
    INSERT INTO offline_counts (state, currency, n, total) VALUES (NEW.state, NEW.currency, 1, NEW.amount)
      ON CONFLICT (state, currency) DO UPDATE SET n = n + 1, total = total + excluded.total;
  END;
  CREATE TRIGGER offline_counts_delete AFTER DELETE ON offline_queue BEGIN
    UPDATE offline_counts SET n = n - 1, total = total - OLD.amount WHERE state = OLD.state AND currency = OLD.currency;
  END;
  CREATE TRIGGER offline_counts_update AFTER UPDATE OF state, currency, amount ON offline_queue
    WHEN OLD.state IS NOT NEW.state OR OLD.currency IS NOT NEW.currency OR OLD.amount IS NOT NEW.amount BEGIN
    UPDATE offline_counts SET n = n - 1, total = total - OLD.amount WHERE state = OLD.state AND currency = OLD.currency;
    INSERT INTO offline_counts (state, currency, n, total) VALUES (NEW.state, NEW.currency, 1, NEW.amount)
      ON CONFLICT (state, currency) DO UPDATE SET n = n + 1, total = total + excluded.total;
  END;
  CREATE TABLE component_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT;
  INSERT INTO component_schema (component, version) VALUES ('offline_queue', 2);
`;

const T0 = Date.parse('2026-03-02T10:00:00.000Z');

interface OldItem {
  id: string;
  operator?: string;
  state: 'queued' | 'uploading' | 'uploaded' | 'needs_attention';
  storedAt: number;
  amount: number;
}

/** Items of the file: two stored in the same millisecond (their order is their rowid's), one needing attention, one uploaded. */
const ITEMS: OldItem[] = [
  { id: 'b-queued', operator: 'clerk-1', state: 'queued', storedAt: T0, amount: 1000 },
  { id: 'a-uploading', operator: 'clerk-2', state: 'uploading', storedAt: T0, amount: 2000 },
  { id: 'c-attention', operator: 'clerk-1', state: 'needs_attention', storedAt: T0 + 1_000, amount: 3000 },
  { id: 'd-uploaded', state: 'uploaded', storedAt: T0 + 2_000, amount: 4000 },
  { id: 'e-queued', operator: 'clerk-2', state: 'queued', storedAt: T0 + 3_000, amount: 5000 },
];

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** A journal file with the queue's tables of schema version 2 and ITEMS in them, written as that agent wrote them. */
function oldFile(): string {
  const { dir, cleanup } = tempDir('queue-upgrade-');
  cleanups.push(cleanup);
  const dataDir = join(dir, 'data');
  const journal = new Journal({ dataDir, clock: { wall: () => T0 } });
  try {
    journal.db.exec(QUEUE_SCHEMA_2);
    const insert = journal.db.prepare(
      `INSERT INTO offline_queue (client_id, amount, currency, client_date_time, masked_pan, scheme, entry_mode, body, state, tries, history, message, stored_at, updated_at, last_try_at)
       VALUES (@id, @amount, 'EUR', @at, '476173******0010', 'visa', 'ContactChip', @body, @state, @tries, @history, @message, @storedAt, @storedAt, @lastTry)`,
    );
    for (const it of ITEMS) {
      const at = new Date(it.storedAt - 2_000).toISOString();
      const sale = {
        clientTransactionId: it.id,
        kind: 'sale' as const,
        method: 'card' as const,
        amount: it.amount,
        currency: 'EUR',
        state: 'in_flight' as const,
        clientDateTime: at,
      };
      if (it.operator !== undefined) withOperator(it.operator, () => journal.insert(sale));
      else journal.insert(sale);
      journal.update(it.id, { state: 'offline_stored', offline: true });
      if (it.state === 'needs_attention') journal.update(it.id, { state: 'needs_attention', message: 'refused' });
      const uploaded = it.state === 'uploaded';
      insert.run({
        id: it.id,
        amount: it.amount,
        at,
        body: uploaded
          ? null
          : JSON.stringify({
              ...processBody({ id: it.id, amount: it.amount, clientDateTime: at }),
              offlineTransaction: true,
            }),
        state: it.state,
        tries: it.state === 'queued' ? 0 : 1,
        history: JSON.stringify(
          it.state === 'needs_attention' ? [{ at, outcome: 'rejected', status: 400, message: 'refused' }] : [],
        ),
        message: it.state === 'needs_attention' ? 'offline upload refused 10 times, last: refused' : null,
        storedAt: it.storedAt,
        lastTry: it.state === 'queued' ? null : it.storedAt + 500,
      });
    }
  } finally {
    journal.close();
  }
  return dataDir;
}

/** The agent's start on that file: the journal, then the offline component (which upgrades its tables). */
function start(dataDir: string): { journal: Journal; offline: ReturnType<typeof createOffline> } {
  const clock: Clock = { ...systemClock(), wall: () => T0 + 10_000 };
  const journal = new Journal({ dataDir, clock });
  cleanups.push(() => journal.close());
  const bus = new EventBus();
  const { log } = testLogger('debug');
  const offline = createOffline({
    db: journal.db,
    reports: offlineSaleReports(new JournalWriter(journal, bus), log),
    platform: {
      isAvailable: async () => Promise.resolve(false),
      process: () => Promise.reject(new Error('offline')),
      status: () => Promise.reject(new Error('offline')),
    },
    bus,
    log,
    config: offlineConfig({ maxCount: 100 }),
    clock,
  });
  return { journal, offline };
}

const withoutOperator = (i: QueueItem): QueueItem => {
  const rest = { ...i };
  delete rest.operator;
  return rest;
};

describe('the queue schema upgrade to version 3', () => {
  it('keeps every item as it was, lists each with its sale’s operator, and leaves no foreign key to the journal', () => {
    const dataDir = oldFile();
    // What the file holds before the upgrade, read as the CLI reads a file the agent has not opened yet.
    const peek = new Journal({ dataDir, clock: { wall: () => T0 } });
    const before = new OfflineQueue(peek.db).list();
    const countsBefore = new OfflineQueue(peek.db).stateCounts();
    const statsBefore = new OfflineQueue(peek.db).stats();
    peek.close();
    expect(before.map((i) => i.clientTransactionId)).toEqual([
      'b-queued',
      'a-uploading',
      'c-attention',
      'd-uploaded',
      'e-queued',
    ]);
    expect(before[0]).not.toHaveProperty('operator');

    const { journal, offline } = start(dataDir);
    const after = offline.list();
    // Nothing lost or changed: the same items, in the same order, field for field.
    expect(after.map(withoutOperator)).toStrictEqual(before);
    expect(after.map((i) => [i.clientTransactionId, i.operator])).toEqual([
      ['b-queued', 'clerk-1'],
      ['a-uploading', 'clerk-2'],
      ['c-attention', 'clerk-1'],
      ['d-uploaded', 'agent'],
      ['e-queued', 'clerk-2'],
    ]);
    const queue = new OfflineQueue(journal.db);
    expect(queue.stateCounts()).toEqual(countsBefore);
    expect(queue.stats()).toEqual(statsBefore);
    expect(queue.pending().map((p) => p.item.clientTransactionId)).toEqual(['b-queued', 'a-uploading', 'e-queued']);
    expect(queue.pending()[0]?.body).toMatchObject({ clientNewTransactionId: 'b-queued', offlineTransaction: true });
    expect(offline.get('c-attention')).toMatchObject({ state: 'needs_attention', holdsCardData: true });

    // The foreign key is gone, the table, its index and the counts' triggers are there.
    expect(journal.db.pragma('foreign_key_list(offline_queue)')).toEqual([]);
    const sql = journal.db
      .prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'offline_queue' ORDER BY name")
      .all() as Array<{ name: string; sql: string }>;
    expect(sql.map((r) => r.name)).toEqual([
      'offline_counts_delete',
      'offline_counts_insert',
      'offline_counts_update',
      'offline_queue',
      'offline_queue_state',
      'sqlite_autoindex_offline_queue_1',
    ]);
    expect(sql.find((r) => r.name === 'offline_queue')?.sql).not.toMatch(/REFERENCES|transactions/i);
    expect(journal.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(journal.db.prepare("SELECT version FROM component_schema WHERE component = 'offline_queue'").get()).toEqual({
      version: OFFLINE_SCHEMA_VERSION,
    });
    expect(OFFLINE_SCHEMA_VERSION).toBe(3);

    // The item needing attention goes back to the queue, its journal row with it.
    expect(journal.get('c-attention')?.state).toBe('needs_attention');
    expect(offline.requeue('c-attention').state).toBe('queued');
    expect(journal.get('c-attention')?.state).toBe('offline_stored');

    // A sale stored after the upgrade keeps its operator and is counted by the triggers.
    withOperator('clerk-3', () => storeOfflineSale(journal, offline, { id: 'f-new', amount: 600 }));
    expect(offline.list({ after: 'e-queued' }).map((i) => [i.clientTransactionId, i.operator])).toEqual([
      ['f-new', 'clerk-3'],
    ]);
    expect(queue.stateCounts()).toEqual({
      ...countsBefore,
      queued: countsBefore.queued + 2,
      needs_attention: countsBefore.needs_attention - 1,
    });
  });

  it('runs once: a second start finds version 3 and changes nothing', () => {
    const dataDir = oldFile();
    const first = start(dataDir);
    const listed = first.offline.list();
    first.journal.close();
    cleanups.pop();
    const second = start(dataDir);
    expect(second.offline.list()).toStrictEqual(listed);
  });
});
