import Database from 'better-sqlite3';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOffline, type OfflineDeps } from '../../src/offline/index.js';
import { configSchema } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import { Journal, JournalWriter, offlineSaleReports } from '../../src/payments/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import type { ProcessRequest } from '../../src/platform/index.js';
import type { TransactionRecord } from '../../src/platform/schemas/responses.js';
import { localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

let f: LocalFixture | undefined;
afterEach(() => {
  f?.close();
  f = undefined;
});

const accepted = (id: string): TransactionRecord => ({
  serverTransactionId: `srv-${id}`,
  clientTransactionId: id,
  transactionStatus: 'Accepted',
  events: [],
});
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A platform in this process that answers each upload on a later turn, as a real request does. */
function answeringPlatform(onProcess: (id: string) => void = () => undefined): OfflineDeps['platform'] {
  return {
    isAvailable: async () => true,
    async process(body: ProcessRequest) {
      onProcess(body.clientNewTransactionId);
      await turn();
      return accepted(body.clientNewTransactionId);
    },
    async status(id: string) {
      throw new PlatformError(`no transaction ${id}`, {
        category: 'rejected',
        operation: 'status',
        method: 'GET',
        status: 404,
        outcomeUnknown: false,
      });
    },
  };
}

/**
 * Durable commits in the write-ahead log: frames whose header carries the database size
 * (only a commit's last frame does), with the log's current salt (https://sqlite.org/fileformat2.html, "WAL File Format").
 */
function commitsInLog(file: string): number {
  if (!existsSync(`${file}-wal`)) return 0;
  const wal = readFileSync(`${file}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt[0] || wal.readUInt32BE(at + 12) !== salt[1]) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits += 1;
  }
  return commits;
}

/** The item and its journal row as a second connection reads them from the file. */
function onDisk(file: string, id: string): { item: string | undefined; body: boolean; row: string | undefined } {
  const db = new Database(file, { readonly: true });
  try {
    const item = db
      .prepare<[string], { state: string; body: string | null }>(
        'SELECT state, body FROM offline_queue WHERE client_id = ?',
      )
      .get(id);
    const row = db.prepare<[string], { state: string }>('SELECT state FROM transactions WHERE client_id = ?').get(id);
    return { item: item?.state, body: item !== undefined && item.body !== null, row: row?.state };
  } finally {
    db.close();
  }
}

describe("an upload round's results", () => {
  for (const uploadConcurrency of [1, 4]) {
    it(`are written in a few durable commits, not one per upload (concurrency ${uploadConcurrency})`, async () => {
      f = localFixture({ uploadConcurrency, maxCount: 100 }, answeringPlatform());
      const ids = Array.from({ length: 40 }, (_, i) => `g-${i}`);
      for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
      await turn();
      // The round's scrub would cut the log this test reads: counted here, not run.
      f.journal.scrub = () => false;
      f.journal.db.pragma('wal_checkpoint(TRUNCATE)');
      const report = await f.offline.uploader.flush();
      expect(report).toMatchObject({ attempted: 40, uploaded: 40, remaining: 0 });
      for (const id of ids) expect(f.offline.get(id)).toMatchObject({ state: 'uploaded', holdsCardData: false });
      // One commit per upload once (40 results and 3 "sending" marks); then the marks carried the
      // results (5 or 6); now one commit per 16 uploads: the first mark, two marks written while a
      // request was out, each with the results answered by then, and the round's end.
      const commits = commitsInLog(f.journal.file);
      expect(commits).toBeGreaterThan(0);
      expect(commits).toBeLessThanOrEqual(4);
    });
  }

  it('are told (events, journal row) only once they are on disk', async () => {
    f = localFixture({ uploadConcurrency: 4, maxCount: 100 }, answeringPlatform());
    const fx = f;
    const ids = Array.from({ length: 20 }, (_, i) => `t-${i}`);
    for (const id of ids) storeOfflineSale(fx.journal, fx.offline, { id, amount: 100 });
    await turn();
    const seen: Array<{ id: string; disk: ReturnType<typeof onDisk> }> = [];
    fx.bus.on('offline.item', (e) => {
      const { clientTransactionId, state } = e.data;
      if (state === 'uploaded')
        seen.push({ id: clientTransactionId, disk: onDisk(fx.journal.file, clientTransactionId) });
    });
    // The journal row's event comes after the item's: on disk by then too.
    const rows: Array<{ id: string; disk: ReturnType<typeof onDisk> }> = [];
    fx.bus.on('transaction.updated', (e) => {
      const id = (e.data as { clientTransactionId: string }).clientTransactionId;
      if (ids.includes(id)) rows.push({ id, disk: onDisk(fx.journal.file, id) });
    });
    expect(await fx.offline.uploader.flush()).toMatchObject({ uploaded: 20, remaining: 0 });
    expect(seen.map((s) => s.id).sort()).toEqual([...ids].sort());
    for (const s of seen) expect(s.disk).toEqual({ item: 'uploaded', body: false, row: 'approved' });
    expect(rows.length).toBeGreaterThanOrEqual(20);
    for (const r of rows) expect(r.disk).toEqual({ item: 'uploaded', body: false, row: 'approved' });
  });

  it('left answered but not yet committed by a crash are looked up, never sent twice', async () => {
    // The files as a crash leaves them while some answers wait for their commit.
    const crash = tempDir('offline-crash-');
    let copied = false;
    const sent: string[] = [];
    f = localFixture(
      { uploadConcurrency: 1, maxCount: 100 },
      answeringPlatform((id) => {
        sent.push(id);
        if (sent.length === 4 && !copied) {
          copied = true;
          // Committed frames only: what a power cut would leave of this journal.
          const file = (f as LocalFixture).journal.file;
          copyFileSync(file, join(crash.dir, 'journal.sqlite'));
          if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, join(crash.dir, 'journal.sqlite-wal'));
        }
      }),
    );
    const ids = Array.from({ length: 6 }, (_, i) => `k-${i}`);
    for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    await turn();
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 6 });
    expect(copied).toBe(true);
    // The first three were answered, and their results not yet on disk when the copy was taken.
    const waiting = ids.slice(0, 3).filter((id) => onDisk(join(crash.dir, 'journal.sqlite'), id).item === 'uploading');
    expect(waiting.length).toBeGreaterThan(0);

    // A new agent on the crashed files: each of those is looked up (the platform has it), not sent again.
    const lookedUp: string[] = [];
    const resent: string[] = [];
    const { log } = testLogger('debug');
    const journal = new Journal({ dataDir: crash.dir });
    try {
      const bus = new EventBus();
      const offline = createOffline({
        db: journal.db,
        reports: offlineSaleReports(new JournalWriter(journal, bus), log),
        bus,
        log,
        config: configSchema.parse({ offline: { maxCount: 100 } }).offline,
        platform: {
          isAvailable: async () => true,
          async process(body: ProcessRequest) {
            resent.push(body.clientNewTransactionId);
            return accepted(body.clientNewTransactionId);
          },
          async status(id: string) {
            lookedUp.push(id);
            return accepted(id);
          },
        },
      });
      expect(await offline.uploader.flush()).toMatchObject({ remaining: 0 });
      for (const id of waiting) {
        expect(lookedUp).toContain(id);
        expect(resent).not.toContain(id);
        expect(offline.get(id)).toMatchObject({ state: 'uploaded', holdsCardData: false });
        expect(journal.get(id)?.state).toBe('approved');
      }
    } finally {
      journal.close();
      crash.cleanup();
    }
  });
});
