import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { createMtlsDispatcher, type DeviceIdentity } from '../../../src/identity/index.js';
import type { ProcessRequest } from '../../../src/platform/index.js';
import { BareHttp } from './bare-http.js';
import { BareSerialExchange } from './bare-serial.js';

/**
 * A bare SQLite file with every pragma the journal sets (src/payments/journal/journal.ts:
 * WAL, synchronous=FULL, the 2 MB page cache, secure_delete): each insert is its own
 * transaction, so each is one durable commit, as each journal write is. The cache and
 * secure_delete were missing before, so the floor ran with better-sqlite3's 16 MB cache.
 */
export function openDurableDb(dir: string, fileName = 'bare.sqlite'): Db {
  const db = new Database(join(dir, fileName));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -2000');
  db.pragma('secure_delete = ON');
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
      card: {
        maskedPan: '476173******0010',
        scheme: 'visa',
        expiry: '2812',
        encryptedData: randomBytes(32).toString('hex').toUpperCase(),
        ksn: 'FFFF9876543210E00001',
      },
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

/** One floor sample and its parts, in milliseconds. */
export interface FloorPhases {
  total: number;
  /** POST to a bare loopback server until its 202. */
  http: number;
  /** startPayment, ACK, cardResult, ACK over the same serial binding. */
  serial: number;
  /** One bare keep-alive mTLS process request. */
  request: number;
  /** The three durable writes the invariants require: the row, in_flight before the request, the answer. */
  writes: number;
  /** Each of them: the row (into a log the previous scrub cut), in_flight, the answer. */
  rowWrite: number;
  inFlightWrite: number;
  answerWrite: number;
}

/**
 * The floor of a whole online card sale (docs/performance.md, "Quality targets"): each physical cost
 * a sale pays, bare and in the sale's order: the local HTTP round trip, the durable insert
 * of the row, the serial exchange with the reader, the durable in_flight write, one bare
 * keep-alive mTLS process request to the same endpoint with a valid token, the durable
 * write of the answer. The first write goes into a log the previous sample cut, as each
 * sale's does after the previous sale's card-data scrub (an invariant, not a choice).
 * Nothing else: no validation, no events, no logging.
 */
export class SaleFloor {
  private readonly dispatcher: Dispatcher;
  private readonly db: Db;
  private readonly insert: Statement;
  private readonly update: Statement;
  private readonly url: string;
  private readonly http = new BareHttp();
  private readonly serial = new BareSerialExchange();

  constructor(private readonly opts: FloorOptions) {
    this.dispatcher = createMtlsDispatcher(opts.identity, {
      connectTimeoutMs: 5_000,
      headersTimeoutMs: 15_000,
      bodyTimeoutMs: 15_000,
    });
    this.db = openDurableDb(opts.dir, 'floor.sqlite');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS floor (id TEXT PRIMARY KEY, state TEXT NOT NULL, amount INTEGER NOT NULL, currency TEXT NOT NULL, body TEXT, at TEXT NOT NULL) STRICT',
    );
    this.insert = this.db.prepare(
      "INSERT INTO floor (id, state, amount, currency, at) VALUES (?, 'created', 1234, 'EUR', ?)",
    );
    this.update = this.db.prepare('UPDATE floor SET state = ?, body = ?, at = ? WHERE id = ?');
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/payment/v1/transactions/process`;
  }

  async start(): Promise<void> {
    await this.http.start();
    await this.serial.open();
  }

  /** One floor sample in milliseconds, with its parts. */
  async once(): Promise<FloorPhases> {
    const id = randomUUID();
    const body = JSON.stringify(cardProcessBody(id));
    const token = await this.opts.token();
    const t0 = performance.now();
    await this.http.once({ method: 'card', amount: '12.34', currency: 'EUR' });
    const t1 = performance.now();
    this.insert.run(id, new Date().toISOString());
    const t2 = performance.now();
    await this.serial.once();
    const t3 = performance.now();
    this.update.run('in_flight', body, new Date().toISOString(), id);
    const t4 = performance.now();
    const res = await request(this.url, {
      dispatcher: this.dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    const text = await res.body.text();
    const t5 = performance.now();
    this.update.run('approved', text, new Date().toISOString(), id);
    const t6 = performance.now();
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`floor request answered ${res.statusCode}`);
    // Untimed, as the agent's scrub runs after the sale: the answer cleared the card data, so
    // the log is cut (docs/journal.md, "Journal", card data at rest) and the next
    // sample's first write starts a new log, as every sale's first write does.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return {
      total: t6 - t0,
      http: t1 - t0,
      serial: t3 - t2,
      request: t5 - t4,
      writes: t2 - t1 + (t4 - t3) + (t6 - t5),
      rowWrite: t2 - t1,
      inFlightWrite: t4 - t3,
      answerWrite: t6 - t5,
    };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    await this.http.stop();
    await this.serial.close();
    this.db.close();
  }
}
