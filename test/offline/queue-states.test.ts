import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/core/errors.js';
import { ensureOfflineSchema, OfflineQueue } from '../../src/offline/index.js';
import type { UploadAttempt } from '../../src/offline/types.js';
import { Journal, withOperator } from '../../src/payments/journal/index.js';
import type { ProcessRequest } from '../../src/platform/index.js';
import { tempDir } from '../helpers/temp-dir.js';

// The offline queue's own states and counts (docs/offline.md, "Offline queue"), on a
// real journal file in a temporary directory: what each write does to an item, what each
// read answers, and the limits' inputs with and without the counts the triggers keep.

const T0 = Date.parse('2026-03-02T10:00:00.000Z');
const ENCRYPTED = 'E7C0FFEE5EC12E7DA7A0000000000000AB12CD34';

interface Spec {
  id: string;
  amount?: number;
  currency?: string;
  merchantId?: string;
  clientDateTime?: string;
  /** Left off the journal row, so the queue takes what the body says. */
  bareRow?: boolean;
}

function body(s: Spec): ProcessRequest {
  return {
    clientDateTime: s.clientDateTime ?? '2026-03-02T09:59:58.123Z',
    channel: 'instore',
    clientNewTransactionId: s.id,
    authorizationAmount: { amount: s.amount ?? 1000, currency: s.currency ?? 'EUR' },
    instrument: {
      instrumentType: 'card',
      card: {
        maskedPan: '476173******0010',
        scheme: 'visa',
        expiry: '2812',
        encryptedData: ENCRYPTED,
        ksn: 'FFFF9876543210E00001',
      },
    },
    entryMode: 'ContactChip',
  };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

interface Rig {
  journal: Journal;
  queue: OfflineQueue;
  clock: { now: number };
  /** A sale as the payments service stores one: journal row in flight, then moved and queued in one transaction. */
  store(s: Spec, b?: ProcessRequest): ReturnType<OfflineQueue['insert']>;
  row(s: Spec): {
    clientTransactionId: string;
    kind: 'sale';
    method: 'card';
    amount: number;
    currency: string;
    merchantId: string | undefined;
    clientDateTime: string;
    entryMode: string | undefined;
    maskedPan: string | undefined;
    scheme: string | undefined;
  };
}

function rig(): Rig {
  const { dir, cleanup } = tempDir('queue-states-');
  const clock = { now: T0 };
  const journal = new Journal({ dataDir: join(dir, 'data'), clock: { wall: () => clock.now } });
  cleanups.push(cleanup, () => journal.close());
  ensureOfflineSchema(journal.db);
  const queue = new OfflineQueue(journal.db, { wall: () => clock.now });
  const row: Rig['row'] = (s) => ({
    clientTransactionId: s.id,
    kind: 'sale',
    method: 'card',
    amount: s.amount ?? 1000,
    currency: s.currency ?? 'EUR',
    merchantId: s.merchantId,
    clientDateTime: s.clientDateTime ?? '2026-03-02T09:59:58.123Z',
    entryMode: s.bareRow === true ? undefined : 'ContactlessChip',
    maskedPan: s.bareRow === true ? undefined : '476173******9999',
    scheme: s.bareRow === true ? undefined : 'mastercard',
  });
  return {
    journal,
    queue,
    clock,
    row,
    store(s, b = body(s)) {
      const r = row(s);
      journal.insert({ ...r, state: 'in_flight' });
      return journal.transaction(() => {
        const { operator } = journal.update(s.id, { state: 'offline_stored', offline: true });
        return queue.insert({ row: { ...r, ...(operator !== undefined ? { operator } : {}) }, body: b });
      });
    },
  };
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

/** A queue database the way an older agent left it: the queue's first schema only, no counts, no operators. */
function oldQueueFile(): { db: Database.Database; queue: OfflineQueue; clock: { now: number } } {
  const { dir, cleanup } = tempDir('queue-old-');
  const db = new Database(join(dir, 'old.sqlite'));
  cleanups.push(cleanup, () => db.close());
  db.exec('CREATE TABLE transactions (client_id TEXT PRIMARY KEY)');
  ensureOfflineSchema(db);
  db.exec(
    'DROP TRIGGER offline_counts_insert; DROP TRIGGER offline_counts_delete; DROP TRIGGER offline_counts_update; DROP TABLE offline_counts;',
  );
  const clock = { now: T0 };
  return { db, queue: new OfflineQueue(db, { wall: () => clock.now }), clock };
}

function storeOld(old: ReturnType<typeof oldQueueFile>, s: Spec): void {
  old.db.prepare('INSERT INTO transactions (client_id) VALUES (?)').run(s.id);
  old.queue.insert({
    row: {
      clientTransactionId: s.id,
      kind: 'sale',
      method: 'card',
      amount: s.amount ?? 1000,
      currency: s.currency ?? 'EUR',
      merchantId: undefined,
      clientDateTime: '2026-03-02T09:59:58.123Z',
      entryMode: undefined,
      maskedPan: undefined,
      scheme: undefined,
    },
    body: body(s),
  });
}

describe('storing an offline sale in the queue', () => {
  it('answers the item as stored: queued, no tries, the sale as the journal has it, card data held', () => {
    const r = rig();
    const stored = r.store({ id: 'o-1', amount: 1234, merchantId: 'm-1' });
    expect(stored).toEqual({
      clientTransactionId: 'o-1',
      merchantId: 'm-1',
      amount: 1234,
      currency: 'EUR',
      clientDateTime: '2026-03-02T09:59:58.123Z',
      maskedPan: '476173******9999',
      scheme: 'mastercard',
      entryMode: 'ContactlessChip',
      state: 'queued',
      rejections: 0,
      tries: 0,
      history: [],
      storedAt: '2026-03-02T10:00:00.000Z',
      updatedAt: '2026-03-02T10:00:00.000Z',
      holdsCardData: true,
    });
    expect(r.queue.get('o-1')).toEqual(stored);
    expect(r.queue.has('o-1')).toBe(true);
    expect(r.queue.has('o-2')).toBe(false);
  });

  it('takes the card and entry mode from the upload body when the journal row has none', () => {
    const r = rig();
    expect(r.store({ id: 'o-1', bareRow: true })).toMatchObject({
      maskedPan: '476173******0010',
      scheme: 'visa',
      entryMode: 'ContactChip',
    });
  });

  it('leaves out what neither the journal row nor the body says (no merchant, card or entry mode)', () => {
    const r = rig();
    const b = body({ id: 'o-1' });
    const bare = {
      ...b,
      instrument: {
        instrumentType: 'card',
        card: { expiry: '2812', encryptedData: ENCRYPTED, ksn: 'FFFF9876543210E00001' },
      },
    } as ProcessRequest;
    delete (bare as { entryMode?: string }).entryMode;
    const item = r.store({ id: 'o-1', bareRow: true }, bare);
    expect(Object.keys(item).sort()).toEqual([
      'amount',
      'clientDateTime',
      'clientTransactionId',
      'currency',
      'history',
      'holdsCardData',
      'rejections',
      'state',
      'storedAt',
      'tries',
      'updatedAt',
    ]);
  });

  it('marks the stored body as an offline upload', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    const raw = r.journal.db.prepare('SELECT body FROM offline_queue WHERE client_id = ?').get('o-1') as {
      body: string;
    };
    expect(JSON.parse(raw.body)).toMatchObject({ offlineTransaction: true, clientNewTransactionId: 'o-1' });
  });

  it('refuses a body that does not match its journal row, naming the field, and stores nothing', () => {
    const r = rig();
    const cases: Array<[Partial<ProcessRequest>, string]> = [
      [{ clientNewTransactionId: 'other' }, 'clientNewTransactionId'],
      [{ authorizationAmount: { amount: 999, currency: 'EUR' } }, 'authorizationAmount'],
      [{ authorizationAmount: { amount: 1000, currency: 'USD' } }, 'authorizationAmount'],
      [{ clientDateTime: '2026-03-02T09:00:00.000Z' }, 'clientDateTime'],
      [
        {
          instrument: { instrumentType: 'card', card: { maskedPan: '476173******0010', expiry: '2812', ksn: 'K' } },
        },
        'instrument.card.encryptedData',
      ],
      [{ instrument: { instrumentType: 'card' } }, 'instrument.card.encryptedData'],
    ];
    cases.forEach(([change, field], i) => {
      const id = `o-${i}`;
      const err = thrown(() => r.store({ id }, { ...body({ id }), ...change }));
      expect(isAgentError(err, 'OFFLINE_BODY_MISMATCH'), field).toBe(true);
      expect(err.message).toBe(`offline sale ${id} not stored: its upload body does not match the journal (${field})`);
      expect(r.queue.has(id)).toBe(false);
      expect(r.journal.get(id)?.state).toBe('in_flight');
    });
  });

  it('refuses a body the platform would never take', () => {
    const r = rig();
    const err = thrown(() =>
      r.store({ id: 'o-1' }, { ...body({ id: 'o-1' }), authorizationAmount: undefined } as unknown as ProcessRequest),
    );
    expect(isAgentError(err, 'PLATFORM_BAD_REQUEST')).toBe(true);
    expect(err.message).toMatch(/^offline upload request is invalid: /);
    expect(r.queue.has('o-1')).toBe(false);
  });

  it('never stores a sale whose card asked for online PIN (a PIN block or its format in the body)', () => {
    const r = rig();
    for (const [id, pin] of [
      ['o-1', { pinblock: '0123456789ABCDEF' }],
      ['o-2', { pinblockFormat: 'ISO0' }],
    ] as const) {
      const err = thrown(() => r.store({ id }, { ...body({ id }), ...pin }));
      expect(isAgentError(err, 'OFFLINE_NOT_ELIGIBLE')).toBe(true);
      expect(err.message).toBe(
        'the card asked for online PIN, which only the card issuer can verify online: it cannot be taken offline',
      );
      expect(r.queue.has(id)).toBe(false);
    }
  });

  it('stores a sale once: a second store of the same sale is refused', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    const err = thrown(() => r.queue.insert({ row: r.row({ id: 'o-1' }), body: body({ id: 'o-1' }) }));
    expect(isAgentError(err, 'PAYMENT_STATE')).toBe(true);
    expect(err.message).toBe('offline sale o-1 is stored already');
    // SQLite's own error stays with it, for the log.
    expect((err.cause as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
  });

  it('passes any other storage error on as it is', () => {
    const r = rig();
    r.journal.insert({ ...r.row({ id: 'o-1' }), state: 'in_flight' });
    r.journal.db.exec(
      "CREATE TEMP TRIGGER no_more BEFORE INSERT ON main.offline_queue BEGIN SELECT RAISE(ABORT, 'disk says no'); END;",
    );
    const err = thrown(() => r.queue.insert({ row: r.row({ id: 'o-1' }), body: body({ id: 'o-1' }) }));
    expect(isAgentError(err)).toBe(false);
    expect(err.message).toBe('disk says no');
  });

  it("writes on the journal's connection, inside the caller's transaction, so its rollback takes the item back out", () => {
    const r = rig();
    r.journal.insert({ ...r.row({ id: 'o-1' }), state: 'in_flight' });
    expect(() =>
      r.journal.transaction(() => {
        r.queue.insert({ row: r.row({ id: 'o-1' }), body: body({ id: 'o-1' }) });
        throw new Error('the display failed');
      }),
    ).toThrow('the display failed');
    expect(r.queue.has('o-1')).toBe(false);
    r.journal.transaction(() => r.queue.insert({ row: r.row({ id: 'o-1' }), body: body({ id: 'o-1' }) }));
    expect(r.queue.get('o-1')?.state).toBe('queued');
  });

  it('answers "not in the queue" for an item it does not have', () => {
    const r = rig();
    expect(r.queue.get('nope')).toBeUndefined();
    const err = thrown(() => r.queue.require('nope'));
    expect(isAgentError(err, 'OFFLINE_NOT_FOUND')).toBe(true);
    expect(err.message).toBe('no offline sale nope in the queue');
  });
});

describe('an item moving through its upload', () => {
  it('records an upload outcome: its state, a history line, the server id and status, at the time it happened', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.clock.now = T0 + 60_000;
    const attempt: UploadAttempt = { at: '2026-03-02T10:01:00.000Z', outcome: 'accepted', status: 200 };
    const item = r.queue.update('o-1', {
      state: 'uploaded',
      attempt,
      serverTransactionId: 'srv-1',
      platformStatus: 'Accepted',
      dropBody: true,
    });
    expect(item).toMatchObject({
      state: 'uploaded',
      history: [attempt],
      serverTransactionId: 'srv-1',
      platformStatus: 'Accepted',
      updatedAt: '2026-03-02T10:01:00.000Z',
      holdsCardData: false,
    });
    expect(item.storedAt).toBe('2026-03-02T10:00:00.000Z');
    const raw = r.journal.db.prepare('SELECT body FROM offline_queue WHERE client_id = ?').get('o-1') as {
      body: string | null;
    };
    expect(raw.body).toBeNull();
  });

  it('keeps what an update does not name: state, history, server id, status, message, card data', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.queue.update('o-1', {
      state: 'uploading',
      serverTransactionId: 'srv-1',
      platformStatus: 'Pending',
      message: 'looked up',
    });
    const item = r.queue.update('o-1', {});
    expect(item).toMatchObject({
      state: 'uploading',
      history: [],
      serverTransactionId: 'srv-1',
      platformStatus: 'Pending',
      message: 'looked up',
      rejections: 0,
      holdsCardData: true,
    });
  });

  it('sets and clears the message staff read', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    expect(r.queue.update('o-1', { message: 'refused 3 times' }).message).toBe('refused 3 times');
    expect(r.queue.update('o-1', { message: null })).not.toHaveProperty('message');
  });

  it('counts refusals towards the attempt limit, and starts from zero when staff requeue the item', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.queue.update('o-1', { countRejection: true });
    expect(r.queue.update('o-1', { countRejection: true }).rejections).toBe(2);
    expect(r.queue.update('o-1', { countRejection: false }).rejections).toBe(2);
    const requeued = r.queue.update('o-1', {
      state: 'queued',
      resetRejections: true,
      countRejection: true,
      attempt: { at: 'x', outcome: 'requeued' },
    });
    expect(requeued.rejections).toBe(0);
    expect(r.queue.update('o-1', { resetRejections: false }).rejections).toBe(0);
  });

  it('keeps the last 100 lines of history, oldest dropped first', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    for (let i = 1; i <= 101; i++) r.queue.update('o-1', { attempt: { at: String(i), outcome: 'unavailable' } });
    const { history } = r.queue.require('o-1');
    expect(history).toHaveLength(100);
    expect(history[0]?.at).toBe('2');
    expect(history[99]?.at).toBe('101');
  });

  it('refuses to update an item it does not have', () => {
    const r = rig();
    const err = thrown(() => r.queue.update('nope', { state: 'uploaded' }));
    expect(isAgentError(err, 'OFFLINE_NOT_FOUND')).toBe(true);
    expect(err.message).toBe('no offline sale nope in the queue');
  });

  it('marks waiting items as possibly sent before their requests leave, counting the try, and answers which it marked', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.store({ id: 'o-2' });
    r.store({ id: 'o-3' });
    r.queue.update('o-2', { state: 'uploaded' });
    r.clock.now = T0 + 5_000;
    expect(r.queue.markUploading(['o-1', 'o-2', 'o-3', 'nope'])).toEqual(['o-1', 'o-3']);
    expect(r.queue.require('o-1')).toMatchObject({
      state: 'uploading',
      tries: 1,
      lastTryAt: '2026-03-02T10:00:05.000Z',
      updatedAt: '2026-03-02T10:00:05.000Z',
    });
    expect(r.queue.require('o-2')).toMatchObject({ state: 'uploaded', tries: 0 });
    expect(r.queue.require('o-2')).not.toHaveProperty('lastTryAt');
    // An item left uploading (a crash) is marked again for its next try.
    expect(r.queue.markUploading(['o-1'])).toEqual(['o-1']);
    expect(r.queue.require('o-1').tries).toBe(2);
    expect(r.queue.markUploading([])).toEqual([]);
  });

  it('puts items marked ahead whose request never started back to queued, their try and its time as they were', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.store({ id: 'o-2' });
    r.store({ id: 'o-3' });
    r.clock.now = T0 + 1_000;
    r.queue.markUploading(['o-1']);
    r.clock.now = T0 + 9_000;
    r.queue.markUploading(['o-1', 'o-2', 'o-3']);
    r.queue.update('o-3', { state: 'uploaded' });
    r.clock.now = T0 + 10_000;
    r.queue.unmarkUnsent([
      { clientTransactionId: 'o-1', lastTryAtMs: T0 + 1_000 },
      { clientTransactionId: 'o-2', lastTryAtMs: undefined },
      { clientTransactionId: 'o-3', lastTryAtMs: undefined },
    ]);
    expect(r.queue.require('o-1')).toMatchObject({
      state: 'queued',
      tries: 1,
      lastTryAt: '2026-03-02T10:00:01.000Z',
      updatedAt: '2026-03-02T10:00:10.000Z',
    });
    expect(r.queue.require('o-2')).toMatchObject({ state: 'queued', tries: 0 });
    expect(r.queue.require('o-2')).not.toHaveProperty('lastTryAt');
    // Settled meanwhile: left as it is.
    expect(r.queue.require('o-3')).toMatchObject({ state: 'uploaded', tries: 1 });
    r.queue.unmarkUnsent([]);
  });

  it('never counts a try below zero when undoing a mark', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.queue.update('o-1', { state: 'uploading' });
    r.queue.unmarkUnsent([{ clientTransactionId: 'o-1', lastTryAtMs: undefined }]);
    expect(r.queue.require('o-1')).toMatchObject({ state: 'queued', tries: 0 });
  });
});

describe('what the queue answers about its items', () => {
  it('lists items oldest first, all states unless asked, at most the limit, with the operator who made the sale', () => {
    const r = rig();
    withOperator('clerk-1', () => r.store({ id: 'o-1' }));
    r.clock.now = T0 + 1_000;
    r.store({ id: 'o-2' });
    r.clock.now = T0 + 2_000;
    r.store({ id: 'o-3' });
    r.queue.update('o-2', { state: 'uploaded' });
    // A sale queued before items kept operators, whose journal row had none, has none.
    r.journal.db.prepare("UPDATE offline_queue SET operator = NULL WHERE client_id = 'o-2'").run();
    expect(r.queue.list().map((i) => i.clientTransactionId)).toEqual(['o-1', 'o-2', 'o-3']);
    expect(r.queue.list()[0]?.operator).toBe('clerk-1');
    expect(r.queue.list()[1]).not.toHaveProperty('operator');
    expect(r.queue.list()[2]?.operator).toBe('agent');
    expect(r.queue.get('o-1')).not.toHaveProperty('operator');
    expect(r.queue.list({ states: ['queued'] }).map((i) => i.clientTransactionId)).toEqual(['o-1', 'o-3']);
    expect(r.queue.list({ states: ['uploaded', 'needs_attention'] }).map((i) => i.clientTransactionId)).toEqual([
      'o-2',
    ]);
    expect(r.queue.list({ states: [] })).toEqual([]);
    expect(r.queue.list({ limit: 2 }).map((i) => i.clientTransactionId)).toEqual(['o-1', 'o-2']);
    expect(r.queue.list({ limit: 1.9 }).map((i) => i.clientTransactionId)).toEqual(['o-1']);
    expect(r.queue.list({ limit: -3 })).toEqual([]);
  });

  it('hands an export the same items as the list, one at a time, in the states asked', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.clock.now = T0 + 1_000;
    r.store({ id: 'o-2' });
    r.queue.update('o-2', { state: 'uploaded' });
    const items = r.queue.iterate();
    expect(items.next().value).toStrictEqual(r.queue.list()[0]);
    expect([...items]).toStrictEqual(r.queue.list().slice(1));
    expect([...r.queue.iterate({ states: ['uploaded'] })].map((i) => i.clientTransactionId)).toEqual(['o-2']);
    expect([...r.queue.iterate({ states: [] })]).toEqual([]);
  });

  it('orders items stored in the same millisecond by when they were stored', () => {
    const r = rig();
    r.store({ id: 'b' });
    r.store({ id: 'a' });
    expect(r.queue.list().map((i) => i.clientTransactionId)).toEqual(['b', 'a']);
    expect(r.queue.pending().map((p) => p.item.clientTransactionId)).toEqual(['b', 'a']);
    expect(r.queue.stats().oldest?.clientTransactionId).toBe('b');
  });

  it('refuses to list a state it does not know, naming it (cut short)', () => {
    const r = rig();
    const err = thrown(() => r.queue.list({ states: ['queued', `lost${'x'.repeat(40)}` as 'queued'] }));
    expect(isAgentError(err, 'INPUT_INVALID')).toBe(true);
    expect(err.message).toBe(`unknown queue state lost${'x'.repeat(26)}`);
  });

  it('lists a queue an older agent left, whose journal has no operators', () => {
    const old = oldQueueFile();
    storeOld(old, { id: 'o-1' });
    old.clock.now = T0 + 1;
    storeOld(old, { id: 'o-2' });
    expect(old.queue.list().map((i) => i.clientTransactionId)).toEqual(['o-1', 'o-2']);
    expect(old.queue.list({ states: ['uploaded'] })).toEqual([]);
    expect(old.queue.list({ limit: 1 }).map((i) => i.clientTransactionId)).toEqual(['o-1']);
  });

  it('hands the uploader the items waiting, with their bodies and times, and none whose card data is gone', () => {
    const r = rig();
    r.store({ id: 'o-1', amount: 100 });
    r.clock.now = T0 + 1_000;
    r.store({ id: 'o-2', amount: 200 });
    r.store({ id: 'o-3', amount: 300 });
    r.store({ id: 'o-4', amount: 400 });
    r.clock.now = T0 + 2_000;
    r.queue.markUploading(['o-2']);
    r.queue.update('o-3', { state: 'needs_attention' });
    r.queue.update('o-4', { dropBody: true });
    const pending = r.queue.pending();
    expect(pending.map((p) => p.item.clientTransactionId)).toEqual(['o-1', 'o-2']);
    expect(pending[0]).toMatchObject({ storedAtMs: T0, lastTryAtMs: undefined, item: { state: 'queued' } });
    expect(pending[0]?.body).toMatchObject({
      clientNewTransactionId: 'o-1',
      offlineTransaction: true,
      authorizationAmount: { amount: 100, currency: 'EUR' },
    });
    expect(pending[1]).toMatchObject({ storedAtMs: T0 + 1_000, lastTryAtMs: T0 + 2_000, item: { state: 'uploading' } });
    // Counted as waiting all the same (the uploader says why it cannot send it).
    expect(r.queue.pendingCount()).toBe(3);
  });

  it('counts every sale not confirmed by the platform towards the limits, per currency, with the oldest', () => {
    const r = rig();
    expect(r.queue.stats()).toEqual({ count: 0, totals: {} });
    r.store({ id: 'o-1', amount: 100 });
    r.clock.now = T0 + 1_000;
    r.store({ id: 'o-2', amount: 200, currency: 'USD' });
    r.store({ id: 'o-3', amount: 300 });
    r.store({ id: 'o-4', amount: 400, currency: 'GBP' });
    r.queue.update('o-1', { state: 'uploaded' });
    r.queue.update('o-2', { state: 'uploading' });
    r.queue.update('o-3', { state: 'needs_attention' });
    r.queue.update('o-4', { state: 'declined_after_upload' });
    expect(r.queue.stats()).toEqual({
      count: 2,
      totals: { USD: 200, EUR: 300 },
      oldest: { clientTransactionId: 'o-2', storedAtMs: T0 + 1_000 },
    });
    r.queue.update('o-2', { state: 'uploaded' });
    r.queue.update('o-3', { state: 'uploaded' });
    // Nothing stored any more: no currency left over at zero.
    expect(r.queue.stats()).toEqual({ count: 0, totals: {} });
  });

  it('finds the oldest stored sale in whichever stored state it is', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.clock.now = T0 + 1_000;
    r.store({ id: 'o-2' });
    r.clock.now = T0 + 2_000;
    r.store({ id: 'o-3' });
    r.queue.update('o-1', { state: 'needs_attention' });
    r.queue.update('o-2', { state: 'uploading' });
    expect(r.queue.stats().oldest).toEqual({ clientTransactionId: 'o-1', storedAtMs: T0 });
    r.queue.update('o-1', { state: 'uploaded' });
    expect(r.queue.stats().oldest).toEqual({ clientTransactionId: 'o-2', storedAtMs: T0 + 1_000 });
    r.queue.update('o-2', { state: 'uploaded' });
    expect(r.queue.stats().oldest).toEqual({ clientTransactionId: 'o-3', storedAtMs: T0 + 2_000 });
  });

  it('answers the limits from the counts kept with every write, not by counting the stored sales again', () => {
    const r = rig();
    r.store({ id: 'o-1', amount: 100 });
    // What the triggers keep is what a store's limit check reads (a few rows, whatever the queue holds).
    r.journal.db
      .prepare("UPDATE offline_counts SET n = 7, total = 7000 WHERE state = 'queued' AND currency = 'EUR'")
      .run();
    expect(r.queue.stats()).toMatchObject({ count: 7, totals: { EUR: 7000 } });
    expect(r.queue.stateCounts().queued).toBe(7);
  });

  it('counts the same on a queue an older agent left without kept counts', () => {
    const old = oldQueueFile();
    expect(old.queue.stats()).toEqual({ count: 0, totals: {} });
    storeOld(old, { id: 'o-1', amount: 100 });
    storeOld(old, { id: 'o-2', amount: 200, currency: 'USD' });
    storeOld(old, { id: 'o-3', amount: 300 });
    old.queue.update('o-3', { state: 'uploaded' });
    expect(old.queue.stats()).toEqual({
      count: 2,
      totals: { EUR: 100, USD: 200 },
      oldest: { clientTransactionId: 'o-1', storedAtMs: T0 },
    });
    expect(old.queue.stateCounts()).toEqual({
      queued: 2,
      uploading: 0,
      uploaded: 1,
      declined_after_upload: 0,
      needs_attention: 0,
    });
  });

  it('counts items per state, every state named even at zero', () => {
    const r = rig();
    expect(r.queue.stateCounts()).toEqual({
      queued: 0,
      uploading: 0,
      uploaded: 0,
      declined_after_upload: 0,
      needs_attention: 0,
    });
    r.store({ id: 'o-1' });
    r.store({ id: 'o-2', currency: 'USD' });
    r.store({ id: 'o-3' });
    r.queue.update('o-3', { state: 'declined_after_upload' });
    expect(r.queue.stateCounts()).toEqual({
      queued: 2,
      uploading: 0,
      uploaded: 0,
      declined_after_upload: 1,
      needs_attention: 0,
    });
  });

  it('leaves out counts of a state this agent does not know (a newer agent wrote them)', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.journal.db
      .prepare("INSERT INTO offline_counts (state, currency, n, total) VALUES ('archived', 'EUR', 5, 500)")
      .run();
    expect(r.queue.stateCounts()).toEqual({
      queued: 1,
      uploading: 0,
      uploaded: 0,
      declined_after_upload: 0,
      needs_attention: 0,
    });
  });

  it('gives the age checks the stored sales up to a time, oldest first, and the first stored after one', () => {
    const r = rig();
    r.store({ id: 'o-1' });
    r.clock.now = T0 + 1_000;
    r.store({ id: 'o-2' });
    r.clock.now = T0 + 2_000;
    r.store({ id: 'o-3' });
    r.store({ id: 'o-4' });
    r.queue.update('o-2', { state: 'uploading' });
    r.queue.update('o-4', { state: 'uploaded' });
    expect(r.queue.storedAges()).toEqual([
      { clientTransactionId: 'o-1', storedAtMs: T0, state: 'queued' },
      { clientTransactionId: 'o-2', storedAtMs: T0 + 1_000, state: 'uploading' },
      { clientTransactionId: 'o-3', storedAtMs: T0 + 2_000, state: 'queued' },
    ]);
    expect(r.queue.storedAges({ storedAtOrBefore: T0 + 1_000 }).map((a) => a.clientTransactionId)).toEqual([
      'o-1',
      'o-2',
    ]);
    expect(r.queue.storedAges({ storedAtOrBefore: T0 - 1 })).toEqual([]);
    expect(r.queue.firstStoredAfter(T0)).toBe(T0 + 1_000);
    expect(r.queue.firstStoredAfter(T0 - 1)).toBe(T0);
    expect(r.queue.firstStoredAfter(T0 + 2_000)).toBeUndefined();
    r.queue.update('o-2', { state: 'uploaded' });
    expect(r.queue.firstStoredAfter(T0)).toBe(T0 + 2_000);
  });

  it('says whether the database holds a queue at all', () => {
    const r = rig();
    expect(r.queue.exists()).toBe(true);
    const { dir, cleanup } = tempDir('queue-none-');
    const db = new Database(join(dir, 'none.sqlite'));
    cleanups.push(cleanup, () => db.close());
    expect(new OfflineQueue(db).exists()).toBe(false);
  });
});
