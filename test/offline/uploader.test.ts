import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../../src/sim/platform/payments/index.js';
import {
  ENCRYPTED,
  nextEvent,
  platformFixture,
  processBody,
  storeOfflineSale,
  uploadFixture,
  type PlatformFixture,
  type UploadFixture,
} from '../helpers/offline-sales.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { MARK_FRESH_MS } from '../../src/offline/mark-ahead.js';

/** An immediate-capture merchant's sale: `Captured`, or `Accepted` with the capture event under the strict profile. */
const CAPTURED_STATUS = testSimProfile() === 'strict' ? 'Accepted' : 'Captured';

let p: PlatformFixture;
let f: UploadFixture | undefined;

beforeAll(async () => {
  p = await platformFixture({ headersTimeoutMs: 1_500 });
});
afterAll(async () => {
  await p?.close();
});
afterEach(async () => {
  p.platform.faults.clear();
  await f?.close();
  f = undefined;
});

let seq = 0;
/** Client ids unique across the tests (one demo platform serves them all). */
const uid = (name: string): string => `${name}-${process.pid}-${++seq}`;
/** Moves the agent's clock past the lookup grace of every try so far: a lookup that finds nothing is then the platform's word. */
const pastGrace = (fx: UploadFixture): void => fx.advance(fx.lookupGraceMs + MARK_FRESH_MS + 1);

/** Ledger entries (money movements) of one sale. */
const moves = (id: string) => p.platform.payments.ledger().filter((e) => e.paymentClientTransactionId === id);

function cardRequestEvent(record: TransactionRecord | undefined): Record<string, unknown> | undefined {
  return record?.events.find((e) => e.eventType === 'cardRequest');
}

describe('offline uploader on the demo platform', () => {
  it('uploads after the platform returns, with offlineTransaction and the original clientDateTime and id', async () => {
    f = uploadFixture(p);
    p.platform.faults.set('isAvailable', { status: 503 });
    const id = uid('back');
    const originalTime = new Date(Date.now() - 3 * 3_600_000).toISOString();
    storeOfflineSale(f.journal, f.offline, { id, amount: 1234, clientDateTime: originalTime });
    const offlineSeen = nextEvent(f.bus, 'platform.status', (d) => !d.online);
    f.offline.uploader.start();
    await offlineSeen;
    expect(moves(id)).toEqual([]);
    expect(f.offline.get(id)?.state).toBe('queued');

    const uploaded = nextEvent(f.bus, 'offline.item', (d) => d.clientTransactionId === id && d.state === 'uploaded');
    const online = nextEvent(f.bus, 'platform.status', (d) => d.online);
    const emptied = nextEvent(f.bus, 'offline.levels', (d) => (d as { count: { stored: number } }).count.stored === 0);
    p.platform.faults.clear('isAvailable');
    await Promise.all([uploaded, online, emptied]);

    const item = f.offline.get(id);
    expect(item).toMatchObject({
      state: 'uploaded',
      holdsCardData: false,
      rejections: 0,
      platformStatus: CAPTURED_STATUS,
    });
    expect(item?.serverTransactionId).toBeDefined();
    const row = f.journal.get(id);
    expect(row).toMatchObject({
      state: 'approved',
      serverTransactionId: item?.serverTransactionId,
      offline: true,
      platformStatus: CAPTURED_STATUS,
    });
    expect(row?.cardSecret).toBeUndefined();
    const raw = f.journal.db.prepare('SELECT body FROM offline_queue WHERE client_id = ?').get(id) as {
      body: string | null;
    };
    expect(raw.body).toBeNull();

    const atPlatform = p.platform.payments.transaction(id);
    expect(cardRequestEvent(atPlatform)).toMatchObject({ clientDateTime: originalTime, offlineTransaction: true });
    expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 1234]]);
    expect(f.offline.levels()).toMatchObject({ platform: 'online', count: { stored: 0 } });
    const published = f.events
      .filter((e) => e.type === 'offline.levels')
      .map((e) => e.data as { count: { stored: number }; platform: string });
    expect(published.some((l) => l.count.stored === 1 && l.platform === 'offline')).toBe(true);
    expect(published.at(-1)).toMatchObject({ count: { stored: 0 }, platform: 'online' });
    expect(p.sink.text()).not.toContain(ENCRYPTED);
  });

  it('gets every sale to the platform exactly once when every 3rd upload fails with a 5xx, without counting refusals', async () => {
    f = uploadFixture(p, { uploadConcurrency: 2 });
    const ids = Array.from({ length: 10 }, (_, i) => uid(`nth${i}`));
    for (const [i, id] of ids.entries()) storeOfflineSale(f.journal, f.offline, { id, amount: 1000 + i * 100 });
    p.platform.faults.set('process', { status: 503, everyNth: 3 });
    let deferred = 0;
    for (let round = 0; round < 30 && f.offline.list({ states: ['queued', 'uploading'] }).length > 0; round++) {
      pastGrace(f);
      deferred += (await f.offline.uploader.flush()).deferred;
    }
    expect(deferred).toBeGreaterThan(0);
    for (const [i, id] of ids.entries()) {
      expect(f.offline.get(id)).toMatchObject({ state: 'uploaded', rejections: 0 });
      expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 1000 + i * 100]]);
      expect(f.journal.get(id)?.state).toBe('approved');
    }
    // A 5xx may have been recorded: the next try looked the sale up before sending again.
    expect(ids.some((id) => f?.offline.get(id)?.history.some((h) => h.outcome === 'unknown'))).toBe(true);
    expect(ids.some((id) => f?.offline.get(id)?.history.some((h) => h.outcome === 'not_found'))).toBe(true);
  });

  it('leaves exactly one sale at the platform after a crash between sent and recorded', async () => {
    f = uploadFixture(p);
    const id = uid('crash');
    storeOfflineSale(f.journal, f.offline, { id, amount: 2500 });
    // The platform records the sale, then the answer is lost (as if the agent died before recording it).
    p.platform.faults.set('process', { drop: 'after', times: 1 });
    const first = await f.offline.uploader.flush();
    expect(first).toMatchObject({ attempted: 1, deferred: 1, remaining: 1 });
    expect(f.offline.get(id)?.state).toBe('uploading');
    expect(moves(id)).toHaveLength(1);

    // A new agent on the same files: the item may have arrived, so it is looked up, not re-sent blindly.
    await f.restart();
    const second = await f.offline.uploader.flush();
    expect(second).toMatchObject({ attempted: 1, uploaded: 1, remaining: 0 });
    const item = f.offline.get(id);
    expect(item?.state).toBe('uploaded');
    expect(item?.history.map((h) => h.outcome)).toEqual(['unknown', 'found']);
    expect(item?.serverTransactionId).toBe(p.platform.payments.transaction(id)?.serverTransactionId);
    expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 2500]]);
    expect(f.journal.get(id)?.state).toBe('approved');
  });

  it('sends again after a crash before the request left, and a duplicate send answers the same transaction', async () => {
    f = uploadFixture(p);
    const id = uid('resend');
    storeOfflineSale(f.journal, f.offline, { id, amount: 3100 });
    // As if the agent died right after marking the item: the lookup finds nothing, so it is sent.
    f.journal.db.prepare("UPDATE offline_queue SET state = 'uploading', tries = 1 WHERE client_id = ?").run(id);
    await f.restart();
    pastGrace(f);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(f.offline.get(id)?.history.map((h) => h.outcome)).toEqual(['not_found', 'accepted']);
    // The platform is idempotent on the client id: the same body again moves no money.
    const again = await p.client.platform.process({ ...processBody({ id, amount: 3100 }), offlineTransaction: true });
    expect(again.serverTransactionId).toBe(f.offline.get(id)?.serverTransactionId);
    expect(moves(id)).toHaveLength(1);
  });

  it('keeps a sale declined after upload, flags it and tells staff', async () => {
    f = uploadFixture(p);
    const byAmount = uid('decl-amt');
    const byCard = uid('decl-pan');
    storeOfflineSale(f.journal, f.offline, { id: byAmount, amount: 1251 });
    storeOfflineSale(f.journal, f.offline, { id: byCard, amount: 1000, maskedPan: '400000******0002' });
    const warning = nextEvent(f.bus, 'offline.warning', (d) => d.clientTransactionId === byAmount);
    const updated = nextEvent(f.bus, 'transaction.updated', (d) => d.clientTransactionId === byAmount);
    const report = await f.offline.uploader.flush();
    expect(report).toMatchObject({ attempted: 2, declinedAfterUpload: 2, uploaded: 0, remaining: 0 });
    expect((await warning).data.message).toMatch(/declined after upload: Declined by the issuer: insufficient funds/);
    expect((await updated).data).toMatchObject({
      status: 'declined',
      message: 'declined after upload: Declined by the issuer: insufficient funds',
    });
    for (const id of [byAmount, byCard]) {
      const item = f.offline.get(id);
      expect(item).toMatchObject({ state: 'declined_after_upload', holdsCardData: false, platformStatus: 'Refused' });
      expect(item?.message).toMatch(/^declined after upload: /);
      expect(f.journal.get(id)).toMatchObject({ state: 'declined', message: item?.message });
      expect(moves(id)).toEqual([]);
    }
    expect(f.offline.list({ states: ['declined_after_upload'] })).toHaveLength(2);
  });

  it('moves an item the platform keeps refusing to needs_attention with its history, never dropping it', async () => {
    f = uploadFixture(p, { maxAttempts: 3 });
    const id = uid('refused');
    storeOfflineSale(f.journal, f.offline, { id, amount: 4200 });
    p.platform.faults.set('process', { status: 422, errorCode: 'VALIDATION', errorMessage: 'merchant blocked' });
    expect(await f.offline.uploader.flush()).toMatchObject({ rejected: 1, needsAttention: 0, remaining: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ rejected: 1, needsAttention: 0, remaining: 1 });
    const attention = nextEvent(f.bus, 'offline.warning', (d) => d.clientTransactionId === id);
    expect(await f.offline.uploader.flush()).toMatchObject({ rejected: 0, needsAttention: 1, remaining: 0 });
    expect((await attention).data.message).toMatch(
      /needs attention: offline upload refused 3 times, last: .*merchant blocked/,
    );
    const item = f.offline.get(id);
    expect(item).toMatchObject({ state: 'needs_attention', rejections: 3, holdsCardData: true });
    expect(item?.history.map((h) => [h.outcome, h.status])).toEqual([
      ['rejected', 422],
      ['rejected', 422],
      ['rejected', 422],
    ]);
    expect(f.journal.get(id)).toMatchObject({
      state: 'needs_attention',
      message: expect.stringMatching(/refused 3 times/),
    });
    // Still counted against the limits: not confirmed by the platform.
    expect(f.offline.levels().count.stored).toBe(1);
    expect(moves(id)).toEqual([]);

    // Staff fixed the cause and queue it again: refusals count from zero, the history stays.
    p.platform.faults.clear('process');
    expect(() => f?.offline.requeue(uid('none'))).toThrow(/no offline sale/);
    expect(f.offline.requeue(id)).toMatchObject({ state: 'queued', rejections: 0 });
    expect(f.journal.get(id)?.state).toBe('offline_stored');
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(f.offline.get(id)?.history.map((h) => h.outcome)).toEqual([
      'rejected',
      'rejected',
      'rejected',
      'requeued',
      'accepted',
    ]);
    expect(() => f?.offline.requeue(id)).toThrow(/is uploaded: only a sale needing attention can be queued again/);
    expect(moves(id).map((m) => [m.kind, m.amount])).toEqual([['sale', 4200]]);
  });

  it('does not count a timeout as a refusal and looks the sale up before sending it again', async () => {
    f = uploadFixture(p);
    const id = uid('slow');
    storeOfflineSale(f.journal, f.offline, { id, amount: 800 });
    p.platform.faults.set('process', { latencyMs: 2_500, times: 1 });
    const first = await f.offline.uploader.flush();
    expect(first).toMatchObject({ deferred: 1, rejected: 0 });
    expect(f.offline.get(id)).toMatchObject({ state: 'uploading', rejections: 0 });
    expect(f.offline.get(id)?.history[0]).toMatchObject({
      outcome: 'unknown',
      message: expect.stringMatching(/timeout|time/i),
    });
    for (let i = 0; i < 5 && f.offline.get(id)?.state !== 'uploaded'; i++) {
      pastGrace(f);
      await f.offline.uploader.flush();
    }
    const item = f.offline.get(id);
    expect(item).toMatchObject({ state: 'uploaded', rejections: 0 });
    // Whether the slow request was recorded or not, the next try began with a lookup.
    expect(['found', 'not_found']).toContain(item?.history[1]?.outcome);
    expect(moves(id)).toHaveLength(1);
  });

  it('resolves a 5xx answered after the platform recorded the sale by looking it up', async () => {
    f = uploadFixture(p);
    const id = uid('5xx');
    storeOfflineSale(f.journal, f.offline, { id, amount: 650 });
    p.platform.faults.set('process', { status: 502, afterRecord: true, times: 1 });
    expect(await f.offline.uploader.flush()).toMatchObject({ deferred: 1, rejected: 0 });
    expect(moves(id)).toHaveLength(1);
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    expect(f.offline.get(id)?.history.map((h) => [h.outcome, h.status])).toEqual([
      ['unknown', 502],
      ['found', undefined],
    ]);
    expect(moves(id)).toHaveLength(1);
  });

  it('reports a flush while the platform is unreachable without touching the items', async () => {
    f = uploadFixture(p);
    const id = uid('down');
    storeOfflineSale(f.journal, f.offline, { id });
    p.platform.faults.set('isAvailable', { status: 500 });
    expect(await f.offline.uploader.flush()).toMatchObject({ platform: 'offline', attempted: 0, remaining: 1 });
    expect(f.offline.get(id)).toMatchObject({ state: 'queued', tries: 0 });
  });

  it('uploads for the merchant each sale was taken for', async () => {
    f = uploadFixture(p);
    const id = uid('m2');
    storeOfflineSale(f.journal, f.offline, { id, amount: 900, merchantId: 'm-1002' });
    expect(await f.offline.uploader.flush()).toMatchObject({ uploaded: 1 });
    // m-1002 captures later: the upload is an authorization there.
    expect(f.offline.get(id)?.platformStatus).toBe('Accepted');
    expect(moves(id).map((m) => [m.merchantId, m.kind])).toEqual([['m-1002', 'authorization']]);
  });
});
