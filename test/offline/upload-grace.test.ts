import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  nextEvent,
  platformFixture,
  storeOfflineSale,
  uploadFixture,
  type PlatformFixture,
  type UploadFixture,
} from '../helpers/offline-sales.js';

// An upload whose answer was lost may have reached the platform, whose lookups may lag its
// writes (the contract promises no read-after-write, nor that a repeated client id is
// recognised): it is looked up until payments.lookupGraceMs after it left, and only sent
// again when the platform still has no trace of it (docs/offline.md, "Offline queue").
// The demo platform lags its lookups by 15 s here, the grace is 20 s: lag < grace, one sale.
const GRACE_MS = 20_000;
const LAG_MS = 15_000;
/** Past the grace however the item's try time was written (a mark is at most 1 s before its request). */
const PAST_GRACE_MS = GRACE_MS + 2_000;

let p: PlatformFixture;
let f: UploadFixture | undefined;

beforeAll(async () => {
  p = await platformFixture({ headersTimeoutMs: 1_500 });
});
afterAll(async () => {
  await p?.close();
});
afterEach(async () => {
  // Clearing every fault also puts the platform's clock back.
  p.platform.faults.clear();
  await f?.close();
  f = undefined;
});

let seq = 0;
const uid = (name: string): string => `${name}-${process.pid}-${++seq}`;
const moves = (id: string) => p.platform.payments.ledger().filter((e) => e.paymentClientTransactionId === id);

/** Time passes for the agent and for the platform alike (no test waits for 15 s of it). */
function later(fx: UploadFixture, ms: number): void {
  fx.advance(ms);
  p.platform.faults.clockOffsetMs += ms;
}

/** Every read of the platform lags its writes by LAG_MS, repeats of a client id included. */
function lagLookups(): void {
  p.platform.faults.set('*', { lookupLagMs: LAG_MS });
}

describe('an offline upload whose answer was lost, on a platform whose lookups lag its writes', () => {
  it('is not sent again while its lookups find nothing inside the grace: the one sale is found after the lag and adopted', async () => {
    f = uploadFixture(p, {}, { lookupGraceMs: GRACE_MS });
    const id = uid('lag');
    storeOfflineSale(f.journal, f.offline, { id, amount: 2300 });
    lagLookups();
    p.platform.faults.set('process', { drop: 'after', times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1, remaining: 1 });
    expect(moves(id)).toHaveLength(1);

    const early = await f.offline.uploader.flush();
    expect(early).toMatchObject({ uploaded: 0, remaining: 1 });
    expect(early.items).toEqual([
      expect.objectContaining({
        clientTransactionId: id,
        result: 'deferred',
        state: 'uploading',
        message: expect.stringMatching(/not found at the platform yet/),
      }),
    ]);
    later(f, 10_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });
    expect(moves(id)).toHaveLength(1);

    // 16 s after it left: the platform shows it now, inside the grace.
    later(f, 6_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    const item = f.offline.get(id);
    expect(item?.history.map((h) => h.outcome)).toEqual(['unknown', 'found']);
    expect(item?.serverTransactionId).toBe(p.platform.payments.transaction(id)?.serverTransactionId);
    expect(f.journal.get(id)?.state).toBe('approved');
    expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 2300]]);
  });

  it('is sent again, with its client id, clientDateTime and offlineTransaction, once the grace has passed with no trace of it: one sale, not zero', async () => {
    f = uploadFixture(p, {}, { lookupGraceMs: GRACE_MS });
    const id = uid('none');
    const clientDateTime = new Date(Date.now() - 2 * 3_600_000).toISOString();
    storeOfflineSale(f.journal, f.offline, { id, amount: 1700, clientDateTime });
    lagLookups();
    // The request left and the platform answered 503 without recording it.
    p.platform.faults.set('process', { status: 503, times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1 });
    expect(f.offline.get(id)?.state).toBe('uploading');

    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });
    later(f, GRACE_MS - 5_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });
    expect(moves(id)).toEqual([]);

    later(f, PAST_GRACE_MS - (GRACE_MS - 5_000));
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(f.offline.get(id)?.history.map((h) => h.outcome)).toEqual(['unknown', 'not_found', 'accepted']);
    expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 1700]]);
    const request = p.platform.payments.transaction(id)?.events.find((e) => e.eventType === 'cardRequest') as
      Record<string, unknown> | undefined;
    expect(request).toMatchObject({ clientDateTime, offlineTransaction: true });
  });

  it('does not hold up the sales queued after it while it waits out its grace', async () => {
    f = uploadFixture(p, { uploadConcurrency: 1 }, { lookupGraceMs: GRACE_MS });
    const held = uid('held');
    storeOfflineSale(f.journal, f.offline, { id: held, amount: 900 });
    lagLookups();
    p.platform.faults.set('process', { drop: 'after', times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1 });

    // The running uploader: the held sale is oldest, the next ones go up meanwhile.
    f.offline.uploader.start();
    for (const amount of [1100, 1200]) {
      const next = uid('next');
      const uploaded = nextEvent(
        f.bus,
        'offline.item',
        (d) => d.clientTransactionId === next && d.state === 'uploaded',
      );
      storeOfflineSale(f.journal, f.offline, { id: next, amount });
      f.offline.uploader.wake();
      await uploaded;
      expect(moves(next)).toHaveLength(1);
    }
    expect(f.offline.get(held)?.state).toBe('uploading');
    expect(moves(held)).toHaveLength(1);

    // Past the lag: the uploader's next lookup finds it.
    const adopted = nextEvent(f.bus, 'offline.item', (d) => d.clientTransactionId === held && d.state === 'uploaded');
    later(f, 16_000);
    await adopted;
    await f.offline.uploader.stop();
    expect(f.offline.get(held)?.history.map((h) => h.outcome)).toEqual(['unknown', 'found']);
    expect(moves(held)).toHaveLength(1);
  });
  it('keeps its grace when the wall clock steps forward after its first lookup (the grace runs on the monotonic clock)', async () => {
    f = uploadFixture(p, {}, { lookupGraceMs: GRACE_MS });
    const id = uid('step');
    storeOfflineSale(f.journal, f.offline, { id, amount: 1300 });
    lagLookups();
    p.platform.faults.set('process', { drop: 'after', times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });

    f.stepWallClock(60_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });
    expect(moves(id)).toHaveLength(1);
    later(f, 16_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(moves(id)).toHaveLength(1);
  });
});

describe('an upload left uploading by a crash', () => {
  it('keeps its grace after the restart: the sale the platform recorded is adopted, not sent twice', async () => {
    f = uploadFixture(p, {}, { lookupGraceMs: GRACE_MS });
    const id = uid('crash-lag');
    storeOfflineSale(f.journal, f.offline, { id, amount: 2700 });
    lagLookups();
    p.platform.faults.set('process', { drop: 'after', times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1 });
    later(f, 5_000);

    await f.restart();
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });
    expect(moves(id)).toHaveLength(1);
    later(f, 11_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(f.offline.get(id)?.history.map((h) => h.outcome)).toEqual(['unknown', 'found']);
    expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 2700]]);
  });

  it('counts the grace from when the upload left, not from the restart', async () => {
    f = uploadFixture(p, {}, { lookupGraceMs: GRACE_MS });
    const id = uid('crash-none');
    storeOfflineSale(f.journal, f.offline, { id, amount: 3300 });
    lagLookups();
    p.platform.faults.set('process', { status: 503, times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1 });
    later(f, 15_000);

    await f.restart();
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 0, remaining: 1 });
    expect(moves(id)).toEqual([]);
    // 22 s after it left, 7 s after the restart: the grace of the send is over.
    later(f, PAST_GRACE_MS - 15_000);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(f.offline.get(id)?.history.map((h) => h.outcome)).toEqual(['unknown', 'not_found', 'accepted']);
    expect(moves(id)).toHaveLength(1);
  });
});
