import type { Database } from 'better-sqlite3';
import { AgentError, ErrorCodes } from '../core/index.js';

/**
 * The offline queue's tables. They live in the journal's file so that storing an offline
 * sale and moving its journal row to `offline_stored` are one SQLite transaction
 * (docs/architecture.md, "Invariants" 1: no sale is lost; docs/offline.md, "Offline and
 * payments"). They name no journal table: an item is tied to its sale by the client id
 * alone, and keeps what it needs of the sale (its operator) in its own row.
 *
 * The journal's own `PRAGMA user_version` belongs to the journal's migration list; the
 * queue numbers its schema separately in `component_schema`, so either can grow
 * without renumbering the other.
 *
 * `body` is the process request to upload, with the card data exactly as the reader gave
 * it (encrypted by the reader); it is set to NULL as soon as the platform has answered the
 * upload with a record (accepted or declined), and is never shown. Dropping it schedules
 * the journal's scrub of the write-ahead log, like clearing a journal row's card data
 * (docs/journal.md, "Journal", card data at rest).
 */
interface QueueMigration {
  version: number;
  up(db: Database, operatorsOf: OperatorsOf): void;
}

/** The operators of sales as payments keeps them (`OfflineSaleReports.operatorsOf`). */
export type OperatorsOf = (clientTransactionIds: readonly string[]) => ReadonlyMap<string, string>;

/** Client ids asked of `operatorsOf` at a time. */
const OPERATOR_CHUNK = 500;

/** The queue table as it is now (version 3), under `name`. */
function queueTable(name: string): string {
  return `
    CREATE TABLE ${name} (
      client_id          TEXT PRIMARY KEY,
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
      last_try_at        INTEGER,
      operator           TEXT
    ) STRICT;`;
}

/** The counts' triggers (version 2), made again whenever the queue table is. */
const COUNT_TRIGGERS = `
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
  END;`;

const COMPONENT = 'offline_queue';

const migrations: readonly QueueMigration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE offline_queue (
          client_id          TEXT PRIMARY KEY,
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
      `);
    },
  },
  {
    // Counts and totals per state and currency, kept by triggers in the same transaction as
    // every queue write (whichever connection makes it, rolled back with it). The limit
    // checks inside a store read these few rows instead of aggregating every stored sale,
    // and the levels do not count every uploaded row the table keeps.
    version: 2,
    up(db) {
      db.exec(`
        CREATE TABLE offline_counts (
          state     TEXT NOT NULL,
          currency  TEXT NOT NULL,
          n         INTEGER NOT NULL,
          total     INTEGER NOT NULL,
          PRIMARY KEY (state, currency)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO offline_counts (state, currency, n, total)
          SELECT state, currency, COUNT(*), SUM(amount) FROM offline_queue GROUP BY state, currency;
        ${COUNT_TRIGGERS}
      `);
    },
  },
  {
    // Each item keeps its sale's operator (the list and the export show it), and the queue
    // table declares no foreign key: offline reads and writes its own tables only (docs/offline.md,
    // "Offline and payments"). Files an earlier agent made tie `client_id` to the journal's
    // row by a foreign key, which SQLite cannot drop in place: the table is made anew, filled
    // with every item (rowids kept: they order the items stored in the same millisecond),
    // the old one dropped and the new one renamed, its index and the counts' triggers made
    // again (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema
    // Changes"). The counts stay as they are: the copy runs before the triggers exist and a
    // DROP TABLE fires none. Items already queued take the operator their sale's journal row
    // has, asked of payments.
    version: 3,
    up(db, operatorsOf) {
      db.exec(`
        ${queueTable('offline_queue_next')}
        INSERT INTO offline_queue_next (rowid, client_id, merchant_id, amount, currency, client_date_time, masked_pan, scheme,
            entry_mode, body, state, rejections, tries, history, server_id, platform_status, message, stored_at, updated_at, last_try_at)
          SELECT rowid, client_id, merchant_id, amount, currency, client_date_time, masked_pan, scheme,
            entry_mode, body, state, rejections, tries, history, server_id, platform_status, message, stored_at, updated_at, last_try_at
          FROM offline_queue;
        DROP TABLE offline_queue;
        ALTER TABLE offline_queue_next RENAME TO offline_queue;
        CREATE INDEX offline_queue_state ON offline_queue (state, stored_at);
        ${COUNT_TRIGGERS}
      `);
      const ids = db.prepare('SELECT client_id FROM offline_queue ORDER BY rowid').pluck().all() as string[];
      const set = db.prepare('UPDATE offline_queue SET operator = ? WHERE client_id = ?');
      for (let i = 0; i < ids.length; i += OPERATOR_CHUNK) {
        for (const [id, operator] of operatorsOf(ids.slice(i, i + OPERATOR_CHUNK))) set.run(operator, id);
      }
    },
  },
];

/** No sale's operator known: a file of a queue alone (tests, tools), with no journal to ask. */
const NO_OPERATORS: OperatorsOf = () => new Map();

export const OFFLINE_SCHEMA_VERSION = migrations.length;

/**
 * Creates or upgrades the queue tables in the journal's file (idempotent, one transaction);
 * `operatorsOf` gives the operators of items already queued when the upgrade adds them.
 */
export function ensureOfflineSchema(db: Database, operatorsOf: OperatorsOf = NO_OPERATORS): void {
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS component_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT',
    );
    const row = db
      .prepare<[string], { version: number }>('SELECT version FROM component_schema WHERE component = ?')
      .get(COMPONENT);
    const current = row?.version ?? 0;
    if (current > OFFLINE_SCHEMA_VERSION) {
      throw new AgentError(
        ErrorCodes.INTERNAL,
        `the offline queue has schema version ${current}, newer than this agent knows (${OFFLINE_SCHEMA_VERSION}): run the newer agent`,
      );
    }
    for (const m of migrations) if (m.version > current) m.up(db, operatorsOf);
    db.prepare(
      'INSERT INTO component_schema (component, version) VALUES (?, ?) ON CONFLICT (component) DO UPDATE SET version = excluded.version',
    ).run(COMPONENT, OFFLINE_SCHEMA_VERSION);
  }).immediate();
}

/** Whether a (possibly read-only) database has the queue table yet. */
export function hasOfflineSchema(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'offline_queue'").get() !== undefined;
}

/** Whether the database has the counts the triggers keep (schema version 2); an older file read-only has not. */
export function hasOfflineCounts(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'offline_counts'").get() !== undefined;
}
