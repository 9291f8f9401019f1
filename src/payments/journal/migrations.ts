import type { Database } from 'better-sqlite3';
import { AgentError, ErrorCodes } from '../../core/index.js';

/**
 * Numbered schema migrations of the journal database, applied in order and recorded in
 * `PRAGMA user_version` (docs/journal.md, "Journal"). Append new ones with the next number; never
 * change one that has shipped. Other components that keep tables in the same file (the
 * offline queue, so that a journal update and an enqueue share one transaction) add
 * their migrations to this list too.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const journalMigrations: Migration[] = [
  {
    version: 1,
    name: 'transactions journal',
    up(db) {
      db.exec(`
        CREATE TABLE transactions (
          client_id          TEXT PRIMARY KEY,
          kind               TEXT NOT NULL CHECK (kind IN ('sale', 'capture', 'cancel', 'refund')),
          merchant_id        TEXT,
          amount             INTEGER NOT NULL CHECK (amount >= 0),
          currency           TEXT NOT NULL,
          method             TEXT,
          scenario           TEXT,
          state              TEXT NOT NULL,
          related_client_id  TEXT,
          entry_mode         TEXT,
          masked_pan         TEXT,
          scheme             TEXT,
          platform_status    TEXT,
          server_id          TEXT,
          events             TEXT NOT NULL DEFAULT '[]',
          qr_code            TEXT,
          qr_expire          TEXT,
          captured_amount    INTEGER NOT NULL DEFAULT 0,
          refunded_amount    INTEGER NOT NULL DEFAULT 0,
          cancelled_amount   INTEGER NOT NULL DEFAULT 0,
          attempts           INTEGER NOT NULL DEFAULT 0,
          client_date_time   TEXT NOT NULL,
          cancel_reason      TEXT,
          offline            INTEGER NOT NULL DEFAULT 0,
          message            TEXT,
          card_secret        TEXT,
          created_at         TEXT NOT NULL,
          updated_at         TEXT NOT NULL
        ) STRICT;
        CREATE INDEX transactions_state ON transactions (state);
        CREATE INDEX transactions_created ON transactions (created_at);
        CREATE INDEX transactions_related ON transactions (related_client_id);
      `);
    },
  },
  {
    // Where a sale was made: NULL here at this terminal, 'web' for a web shop's order
    // journaled only to give money back by web (docs/platform-contract.md, "Decisions where
    // the spec is silent", refund by web).
    version: 2,
    name: 'transaction origin',
    up(db) {
      db.exec(`ALTER TABLE transactions ADD COLUMN origin TEXT CHECK (origin IS NULL OR origin IN ('web'))`);
    },
  },
  {
    // Who made each row (docs/journal.md, "Journal"): the signed-in clerk's username,
    // `cli` or `local-api` for token callers, `agent` for its own rows. Rows from before
    // this migration have none (NULL).
    version: 3,
    name: 'operator of each row',
    up(db) {
      db.exec('ALTER TABLE transactions ADD COLUMN operator TEXT');
    },
  },
  {
    // Rows of a state changed since an instant, without reading the state's whole history:
    // the late-landing watch resumed at start (docs/payments.md, "Unknown outcome:
    // resolution and reversal") reads only sales counted as not done within its window.
    version: 4,
    name: 'index of state and update time',
    up(db) {
      db.exec('CREATE INDEX transactions_state_updated ON transactions (state, updated_at)');
    },
  },
  {
    // The caller's own reference of a sale, and the local API's idempotency keys
    // (docs/local-api.md, "Idempotency" and "Caller reference"): after a lost answer a cash
    // register finds its sale by repeating the request with its key or by its reference.
    // A key row names the caller (its scope), the request's hash and, once answered, the
    // answer or the transaction it made; rows older than the retention are deleted.
    version: 5,
    name: 'caller reference and idempotency keys',
    up(db) {
      db.exec(`
        ALTER TABLE transactions ADD COLUMN reference TEXT;
        CREATE INDEX transactions_reference ON transactions (reference) WHERE reference IS NOT NULL;
        CREATE TABLE idempotency_keys (
          scope         TEXT NOT NULL,
          key           TEXT NOT NULL,
          request_hash  TEXT NOT NULL,
          run           TEXT NOT NULL,
          status        INTEGER,
          answer        TEXT,
          client_id     TEXT,
          created_at    TEXT NOT NULL,
          PRIMARY KEY (scope, key)
        ) STRICT;
        CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      `);
    },
  },
  {
    // A row found by the platform's id (`status`, `cancel`, `refund` given a server id, the
    // relay's events) read the whole table: 100,000 rows of a year's sales (docs/performance.md,
    // "Quality targets", scale bench, query plans).
    version: 6,
    name: 'index of server transaction ids',
    up(db) {
      db.exec('CREATE INDEX IF NOT EXISTS transactions_server_id ON transactions (server_id)');
    },
  },
  {
    // Fewer pages per durable write (docs/performance.md, "Quality targets", durable-enqueue): each
    // index a row is in is one more page its commit writes and fsyncs. `transactions_state`
    // repeats the first column of (state, updated_at), which answers every query by state
    // as well; a sale has no related sale and, until the platform answers, no server id, so
    // those two indexes keep only the rows that have one (a query `= ?` still uses them).
    version: 7,
    name: 'fewer index pages per write',
    up(db) {
      db.exec(`
        DROP INDEX IF EXISTS transactions_state;
        DROP INDEX IF EXISTS transactions_related;
        CREATE INDEX transactions_related ON transactions (related_client_id) WHERE related_client_id IS NOT NULL;
        DROP INDEX IF EXISTS transactions_server_id;
        CREATE INDEX transactions_server_id ON transactions (server_id) WHERE server_id IS NOT NULL;
      `);
    },
  },
  {
    // The call that carried a row when it is not the usual one (types.ts, `via`): 'qrTerminal'
    // for a sale sent through the terminal QR call, resolved by what the platform promises for
    // it, also after a restart (docs/payments.md, "Wallet QR, merchant scan": its client id
    // went to the QR service, and the payment API is not promised to know it); 'web' for an
    // operation sent through the platform's refundbyweb, whose lost answer is settled from the
    // sale acted upon (docs/platform-contract.md, "Decisions where the spec is silent",
    // recognising a refund by web whose answer was lost), at start-up too.
    version: 8,
    name: 'which call carried a row',
    up(db) {
      db.exec(`ALTER TABLE transactions ADD COLUMN via TEXT CHECK (via IS NULL OR via IN ('qrTerminal', 'web'))`);
    },
  },
  {
    // The local-API request that made a row (docs/operations.md, "Logs", request ids): its log
    // lines carry the same id. NULL for rows the agent made on its own and rows from before.
    version: 9,
    name: 'request id of each row',
    up(db) {
      db.exec('ALTER TABLE transactions ADD COLUMN request_id TEXT');
    },
  },
  {
    // Changes that hide or change what the terminal records (the log level set to silent or
    // error), written before they take effect (audit-log.ts; docs/operations.md, "Log level").
    version: 10,
    name: 'audit rows',
    up(db) {
      db.exec(`
        CREATE TABLE audit (
          id          INTEGER PRIMARY KEY,
          at          TEXT NOT NULL,
          action      TEXT NOT NULL,
          by          TEXT NOT NULL,
          detail      TEXT NOT NULL,
          request_id  TEXT
        ) STRICT;
      `);
    },
  },
];

/** Applies every migration above the database's user_version, each in its own transaction. */
export function migrate(db: Database, migrations: readonly Migration[] = journalMigrations): number {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new AgentError(
        ErrorCodes.INTERNAL,
        `journal migrations must be numbered 1, 2, 3, ...: found ${m.version} (${m.name}) at position ${i + 1}`,
      );
    }
  });
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = sorted.length;
  if (current > latest) {
    throw new AgentError(
      ErrorCodes.INTERNAL,
      `the journal database has schema version ${current}, newer than this agent knows (${latest}): run the newer agent or restore a backup`,
    );
  }
  for (const m of sorted) {
    if (m.version <= current) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}
