import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { createMtlsDispatcher, type DeviceIdentity } from '../../../src/identity/index.js';
import type { ProcessRequest } from '../../../src/platform/index.js';

/**
 * A bare SQLite file with the journal's pragmas (WAL, synchronous=FULL): each insert is
 * its own transaction, so each is one durable commit, as each journal write is.
 */
export function openDurableDb(dir: string, fileName = 'bare.sqlite'): Db {
  const db = new Database(join(dir, fileName));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/** A card process body as the engine sends it (docs/platform-contract.md, "Decisions where the spec is silent"). */
export function cardProcessBody(id: string, amount = 1234): ProcessRequest {
  return {
    clientDateTime: new Date().toISOString(),
    channel: 'instore',
    clientNewTransactionId: id,
    authorizationAmount: { amount, currency: 'EUR' },
    entryMode: 'ContactlessChip',
    instrument: {
      instrumentType: 'card',
      card: { maskedPan: '476173******0010', scheme: 'visa', expiry: '2812', encryptedData: randomBytes(32).toString('hex').toUpperCase(), ksn: 'FFFF9876543210E00001' },
    },
  };
}

export interface FloorOptions {
  /** The platform's main API (the agent's baseUrl). */
  baseUrl: string;
  identity: DeviceIdentity;
  /** A valid device token. */
  token: () => Promise<string>;
  /** Where the bare SQLite file goes. */
  dir: string;
}

export interface FloorPhases {
  total: number;
  request: number;
  inserts: number;
}

/**
 * The floor of an online sale (README.md, "Quality targets"): one bare keep-alive mTLS
 * request to the same process endpoint with a valid token, plus two durable inserts of a
 * journal-sized row. Nothing else: no validation, no events, no logging.
 */
export class SaleFloor {
  private readonly dispatcher: Dispatcher;
  private readonly db: Db;
  private readonly insert: Statement;
  private readonly url: string;

  constructor(private readonly opts: FloorOptions) {
    this.dispatcher = createMtlsDispatcher(opts.identity, { connectTimeoutMs: 5_000, headersTimeoutMs: 15_000, bodyTimeoutMs: 15_000 });
    this.db = openDurableDb(opts.dir, 'floor.sqlite');
    this.db.exec('CREATE TABLE IF NOT EXISTS floor (id TEXT PRIMARY KEY, state TEXT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL) STRICT');
    this.insert = this.db.prepare('INSERT INTO floor (id, state, body, at) VALUES (?, ?, ?, ?)');
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/payment/v1/transactions/process`;
  }

  /** One floor sample in milliseconds, with its parts. */
  async once(): Promise<FloorPhases> {
    const id = randomUUID();
    const body = JSON.stringify(cardProcessBody(id));
    const token = await this.opts.token();
    const t0 = performance.now();
    this.insert.run(id, 'in_flight', body, new Date().toISOString());
    const t1 = performance.now();
    const res = await request(this.url, {
      dispatcher: this.dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    const text = await res.body.text();
    const t2 = performance.now();
    this.insert.run(`${id}:answer`, 'approved', text, new Date().toISOString());
    const t3 = performance.now();
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`floor request answered ${res.statusCode}`);
    return { total: t3 - t0, request: t2 - t1, inserts: t1 - t0 + (t3 - t2) };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    this.db.close();
  }
}
