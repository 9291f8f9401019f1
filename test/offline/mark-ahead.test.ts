import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { OfflineDeps } from '../../src/offline/index.js';
import { ErrorCodes } from '../../src/core/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import type { ProcessRequest } from '../../src/platform/index.js';
import type { TransactionRecord } from '../../src/platform/schemas/responses.js';
import { localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';

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

const networkDown = (): PlatformError =>
  new PlatformError('platform not reachable (ECONNREFUSED)', {
    category: 'network',
    operation: 'process',
    method: 'POST',
    outcomeUnknown: false,
  });

/** A platform in this process that records, for each process request, the state its item had on disk as it left. */
function recordingPlatform(
  fx: () => LocalFixture,
  failFrom = Number.POSITIVE_INFINITY,
): {
  platform: OfflineDeps['platform'];
  sent: Array<{ id: string; stateOnDisk: string | undefined }>;
  lookedUp: string[];
} {
  const sent: Array<{ id: string; stateOnDisk: string | undefined }> = [];
  const lookedUp: string[] = [];
  return {
    sent,
    lookedUp,
    platform: {
      isAvailable: async () => true,
      async process(body: ProcessRequest) {
        const id = body.clientNewTransactionId;
        sent.push({ id, stateOnDisk: fx().offline.get(id)?.state });
        if (sent.length >= failFrom) throw networkDown();
        return accepted(id);
      },
      async status(id: string) {
        lookedUp.push(id);
        throw new PlatformError('no such transaction', {
          category: 'rejected',
          operation: 'status',
          method: 'GET',
          status: 404,
          outcomeUnknown: false,
        });
      },
    },
  };
}

describe('offline uploads marked ahead', () => {
  for (const uploadConcurrency of [1, 4]) {
    it(`sends every upload with its item already marked uploading on disk (concurrency ${uploadConcurrency})`, async () => {
      const rec = recordingPlatform(() => f as LocalFixture);
      f = localFixture({ uploadConcurrency, maxCount: 100 }, rec.platform);
      const ids = Array.from({ length: 40 }, (_, i) => `m-${i}`);
      for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
      const report = await f.offline.uploader.flush();
      expect(report).toMatchObject({ attempted: 40, uploaded: 40, remaining: 0 });
      expect(rec.sent.map((s) => s.id).sort()).toEqual([...ids].sort());
      expect(rec.sent.every((s) => s.stateOnDisk === 'uploading')).toBe(true);
      expect(rec.lookedUp).toEqual([]);
      for (const id of ids)
        expect(f.offline.get(id)).toMatchObject({ state: 'uploaded', tries: 1, holdsCardData: false });
    });
  }

  it('puts the items marked ahead back to queued, tries unchanged, when the round stops before sending them', async () => {
    const rec = recordingPlatform(() => f as LocalFixture, 3);
    f = localFixture({ uploadConcurrency: 1, maxCount: 100 }, rec.platform);
    const ids = Array.from({ length: 10 }, (_, i) => `s-${i}`);
    for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    const report = await f.offline.uploader.flush();
    expect(report).toMatchObject({ attempted: 3, uploaded: 2, deferred: 1 });
    expect(rec.sent.map((s) => s.id)).toEqual(['s-0', 's-1', 's-2']);
    expect(f.offline.get('s-2')).toMatchObject({ state: 'queued', tries: 1 });
    for (const id of ids.slice(3)) {
      const item = f.offline.get(id);
      expect(item).toMatchObject({ state: 'queued', tries: 0, history: [] });
      expect(item?.lastTryAt).toBeUndefined();
    }
  });

  it('marks the next batch while a request is out, so the request that needs it does not wait for its commit', async () => {
    // At the moment each request leaves: is the item 8 places further on marked on disk already?
    const aheadOnDisk: Array<string | undefined> = [];
    const ids = Array.from({ length: 40 }, (_, i) => `n-${i}`);
    const platform: OfflineDeps['platform'] = {
      isAvailable: async () => true,
      async process(body: ProcessRequest) {
        const at = ids.indexOf(body.clientNewTransactionId);
        // The platform takes two turns of the event loop to answer (a real one takes longer).
        for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
        aheadOnDisk[at] = (f as LocalFixture).offline.get(ids[at + 8] ?? '')?.state;
        return accepted(body.clientNewTransactionId);
      },
      status: async () => {
        throw new Error('no lookups in this test');
      },
    };
    f = localFixture({ uploadConcurrency: 1, maxCount: 100 }, platform);
    for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 40, remaining: 0 });
    // While request 8 is out the batch from 16 on is marked (and from 32 on while 24 is out):
    // each request from 8 on finds the item 8 further on marked already.
    expect(aheadOnDisk.slice(8, 32)).toEqual(Array.from({ length: 24 }, () => 'uploading'));
  });

  it('refreshes the marks while a slow platform answers, so every upload leaves within 1 s of the try time on disk', async () => {
    // A crash's lookup grace counts from that time (docs/offline.md, "Offline queue"):
    // it must not say the request left long before it did.
    const gaps: number[] = [];
    const platform: OfflineDeps['platform'] = {
      isAvailable: async () => true,
      async process(body: ProcessRequest) {
        const fx = f as LocalFixture;
        const lastTryAt = fx.offline.get(body.clientNewTransactionId)?.lastTryAt;
        gaps.push(lastTryAt === undefined ? Number.POSITIVE_INFINITY : fx.clock.now - Date.parse(lastTryAt));
        // Each answer takes the platform 0.6 s.
        fx.clock.now += 600;
        await new Promise((resolve) => setImmediate(resolve));
        return accepted(body.clientNewTransactionId);
      },
      status: async () => {
        throw new Error('no lookups in this test');
      },
    };
    f = localFixture({ uploadConcurrency: 1, maxCount: 100 }, platform);
    const ids = Array.from({ length: 40 }, (_, i) => `w-${i}`);
    for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 40, remaining: 0 });
    expect(gaps).toHaveLength(40);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1_000);
    // A refreshed mark is not another try.
    for (const id of ids) expect(f.offline.get(id)?.tries).toBe(1);
  });

  it('looks up an item left marked by a crash before sending it, and sends it once when the platform does not have it', async () => {
    const rec = recordingPlatform(() => f as LocalFixture);
    f = localFixture({ uploadConcurrency: 1, maxCount: 100 }, rec.platform);
    for (const id of ['c-0', 'c-1', 'c-2']) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    // What a crash after a mark-ahead write leaves: marked, whether or not the request left.
    f.journal.db
      .prepare("UPDATE offline_queue SET state = 'uploading', tries = 1 WHERE client_id IN ('c-0', 'c-1')")
      .run();
    // The restart comes after the lookup grace (20 s by default): not found is then the platform's word.
    f.clock.now += 22_000;
    const report = await f.offline.uploader.flush();
    expect(report).toMatchObject({ attempted: 3, uploaded: 3, remaining: 0 });
    expect(rec.lookedUp.sort()).toEqual(['c-0', 'c-1']);
    expect(rec.sent.map((s) => s.id).sort()).toEqual(['c-0', 'c-1', 'c-2']);
    expect(rec.sent.every((s) => s.stateOnDisk === 'uploading')).toBe(true);
  });
});

describe('an item that may have arrived, whose merchant the terminal no longer serves', () => {
  it('goes to staff without holding up the round, and a requeue looks it up before anything is sent', async () => {
    const sent: string[] = [];
    let merchantServed = false;
    const platform: OfflineDeps['platform'] = {
      isAvailable: async () => true,
      async process(body: ProcessRequest) {
        sent.push(body.clientNewTransactionId);
        return accepted(body.clientNewTransactionId);
      },
      async status(id: string) {
        // As the platform client reports a token it cannot get for that merchant.
        if (!merchantServed) {
          throw new PlatformError(
            "no access token for status: merchant m-gone is not one of this terminal's merchants",
            {
              category: 'auth',
              code: ErrorCodes.AUTH_NO_MERCHANT,
              operation: 'status',
              method: 'GET',
              outcomeUnknown: false,
            },
          );
        }
        return accepted(id);
      },
    };
    f = localFixture({ uploadConcurrency: 1, maxCount: 100 }, platform);
    for (const id of ['g-0', 'g-1']) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    // Marked by an earlier round: its request may have left.
    f.journal.db.prepare("UPDATE offline_queue SET state = 'uploading', tries = 1 WHERE client_id = 'g-0'").run();
    const report = await f.offline.uploader.flush();
    expect(report).toMatchObject({ attempted: 2, uploaded: 1, needsAttention: 1, remaining: 0 });
    expect(sent).toEqual(['g-1']);
    expect(f.offline.get('g-0')).toMatchObject({ state: 'needs_attention' });
    expect(f.offline.get('g-0')?.message).toContain('it may have reached the platform');

    // Requeued once the merchant is the terminal's again: found by the lookup, never sent again.
    expect(f.offline.requeue('g-0')).toMatchObject({ state: 'uploading' });
    merchantServed = true;
    expect(await f.offline.uploader.flush()).toMatchObject({ attempted: 1, uploaded: 1, remaining: 0 });
    expect(sent).toEqual(['g-1']);
    expect(f.offline.get('g-0')).toMatchObject({ state: 'uploaded' });
  });
});

describe('card data cleared by an upload round', () => {
  it('is scrubbed from the write-ahead log once, when the round ends, not once per uploaded sale', async () => {
    // Each upload answers on a later turn of the event loop, as a real request does.
    const platform: OfflineDeps['platform'] = {
      isAvailable: async () => true,
      async process(body: ProcessRequest) {
        await new Promise((resolve) => setImmediate(resolve));
        return accepted(body.clientNewTransactionId);
      },
      status: async () => {
        throw new Error('no lookups in this test');
      },
    };
    f = localFixture({ uploadConcurrency: 1, maxCount: 100 }, platform);
    const ids = Array.from({ length: 6 }, (_, i) => `c-${i}`);
    for (const id of ids) storeOfflineSale(f.journal, f.offline, { id, amount: 100 });
    await new Promise((resolve) => setImmediate(resolve));
    const journal = f.journal;
    let scrubs = 0;
    const scrub = journal.scrub.bind(journal);
    journal.scrub = () => {
      scrubs += 1;
      return scrub();
    };
    const report = await f.offline.uploader.flush();
    expect(report).toMatchObject({ uploaded: 6, remaining: 0 });
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(scrubs).toBe(1);
    expect(journal.scrubPending).toBe(false);
    expect(statSync(`${journal.file}-wal`).size).toBe(0);
  });
});
