import { withOperator } from '../../src/payments/index.js';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/core/errors.js';
import { openQueueReadOnly, toCsv, toJson } from '../../src/offline/index.js';
import {
  ENCRYPTED,
  PINBLOCK,
  localFixture,
  processBody,
  storeOfflineSale,
  type LocalFixture,
} from '../helpers/offline-sales.js';

const HOUR = 3_600_000;
let f: LocalFixture | undefined;
afterEach(() => {
  f?.close();
  f = undefined;
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('offline queue storage', () => {
  it('keeps the queue in the journal database with WAL and synchronous=FULL', () => {
    f = localFixture();
    expect(f.journal.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(f.journal.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(f.offline.list()).toEqual([]);
  });

  it('stores the sale in the same transaction as its journal row, with the original clientDateTime', () => {
    f = localFixture();
    storeOfflineSale(f.journal, f.offline, { id: 'o-1', amount: 1234, clientDateTime: '2026-03-02T09:59:58.123Z' });
    const item = f.offline.get('o-1');
    expect(item).toMatchObject({
      clientTransactionId: 'o-1',
      amount: 1234,
      currency: 'EUR',
      clientDateTime: '2026-03-02T09:59:58.123Z',
      maskedPan: '476173******0010',
      entryMode: 'ContactChip',
      state: 'queued',
      tries: 0,
      rejections: 0,
      holdsCardData: true,
    });
    expect(f.journal.get('o-1')?.state).toBe('offline_stored');
    // The body to upload is on disk as given, marked as an offline upload.
    const raw = f.journal.db.prepare('SELECT body FROM offline_queue WHERE client_id = ?').get('o-1') as {
      body: string;
    };
    expect(JSON.parse(raw.body)).toMatchObject({
      offlineTransaction: true,
      clientNewTransactionId: 'o-1',
      clientDateTime: '2026-03-02T09:59:58.123Z',
    });
  });

  it('rolls back the journal update when the enqueue fails, and the enqueue when the transaction fails later', () => {
    f = localFixture();
    const { journal, offline } = f;
    journal.insert({
      clientTransactionId: 'o-2',
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: new Date().toISOString(),
    });
    // A body that does not match the journal row is refused, and the row stays in flight.
    const err = thrown(() =>
      journal.transaction(() => {
        const row = journal.update('o-2', { state: 'offline_stored' });
        offline.hook.store({ row, body: processBody({ id: 'o-2', amount: 999 }) });
      }),
    );
    expect(isAgentError(err, 'OFFLINE_BODY_MISMATCH')).toBe(true);
    expect((err as Error).message).toMatch(/does not match the journal \(authorizationAmount\)/);
    expect(journal.get('o-2')?.state).toBe('in_flight');
    expect(offline.get('o-2')).toBeUndefined();
    // A failure of PaymentService after the enqueue takes the queue row back out too.
    expect(() =>
      journal.transaction(() => {
        const row = journal.update('o-2', { state: 'offline_stored' });
        offline.hook.store({
          row,
          body: processBody({ id: 'o-2', amount: 1000, clientDateTime: row.clientDateTime }),
        });
        throw new Error('display failed');
      }),
    ).toThrow('display failed');
    expect(offline.get('o-2')).toBeUndefined();
    expect(journal.get('o-2')?.state).toBe('in_flight');
  });

  it('checks the limits again inside the storing transaction (a sale stored since eligible counts)', () => {
    f = localFixture({ maxCount: 1 });
    const { journal, offline } = f;
    storeOfflineSale(journal, offline, { id: 'o-1' });
    journal.insert({
      clientTransactionId: 'o-2',
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-03-02T10:00:00.000Z',
    });
    const err = thrown(() =>
      journal.transaction(() => {
        const row = journal.update('o-2', { state: 'offline_stored' });
        offline.hook.store({ row, body: processBody({ id: 'o-2', clientDateTime: '2026-03-02T10:00:00.000Z' }) });
      }),
    );
    expect(isAgentError(err, 'OFFLINE_LIMIT')).toBe(true);
    expect((err as Error).message).toBe('offline queue full: 1 sales stored (at most 1)');
    expect(journal.get('o-2')?.state).toBe('in_flight');
  });

  it('declines each limit through the hook with a message naming it', () => {
    f = localFixture({ floorLimits: { EUR: 25_000 }, maxTotal: { EUR: 30_000 }, maxCount: 3 });
    const { journal, offline } = f;
    const sale = (id: string, amount: number, currency = 'EUR') => ({
      sale: {
        clientTransactionId: id,
        kind: 'sale' as const,
        method: 'card' as const,
        amount,
        currency,
        merchantId: undefined,
      },
      entryMode: 'ContactlessChip',
      maskedPan: '476173******0010',
      scheme: 'visa',
      offlineApproved: true,
    });
    expect(offline.hook.eligible(sale('x', 25_001))).toEqual({
      ok: false,
      code: 'OFFLINE_LIMIT',
      reason: 'offline floor limit 250.00 EUR exceeded: the sale is 250.01 EUR',
    });
    expect(offline.hook.eligible(sale('x', 100, 'CHF'))).toMatchObject({ ok: false, code: 'OFFLINE_NOT_ELIGIBLE' });
    expect(offline.hook.allowed({ kind: 'sale', method: 'card', amount: 25_000, currency: 'EUR' })).toEqual({
      ok: true,
    });
    storeOfflineSale(journal, offline, { id: 'o-1', amount: 20_000 });
    expect(offline.hook.eligible(sale('x', 10_001))).toEqual({
      ok: false,
      code: 'OFFLINE_LIMIT',
      reason: 'offline total limit 300.00 EUR would be exceeded: 200.00 EUR stored, the sale is 100.01 EUR',
    });
    storeOfflineSale(journal, offline, { id: 'o-2', amount: 5_000 });
    storeOfflineSale(journal, offline, { id: 'o-3', amount: 5_000 });
    expect(offline.hook.eligible(sale('x', 1))).toEqual({
      ok: false,
      code: 'OFFLINE_LIMIT',
      reason: 'offline queue full: 3 sales stored (at most 3)',
    });
    expect(() => storeOfflineSale(journal, offline, { id: 'o-4', amount: 1 })).toThrow(
      'offline queue full: 3 sales stored (at most 3)',
    );
    const levels = offline.levels();
    expect(levels.count).toEqual({ stored: 3, max: 3, ratio: 1 });
    expect(levels.totals.find((t) => t.currency === 'EUR')).toMatchObject({ stored: 30_000, max: 30_000, ratio: 1 });
  });

  it('publishes the stored item and the new levels after the transaction commits', async () => {
    f = localFixture();
    storeOfflineSale(f.journal, f.offline, { id: 'o-1', amount: 700 });
    await Promise.resolve();
    // The sale's own event right after the commit; the queue-wide pass once in this turn.
    expect(f.events.map((e) => e.type)).toEqual(['offline.item']);
    await new Promise((resolve) => setImmediate(resolve));
    const types = f.events.map((e) => e.type);
    expect(types).toContain('offline.levels');
    expect(types).toContain('platform.status');
    const levels = f.events.filter((e) => e.type === 'offline.levels').at(-1)?.data as { count: { stored: number } };
    expect(levels.count.stored).toBe(1);
    expect(f.sink.text()).not.toContain(ENCRYPTED);
  });
});

describe('offline age warnings', () => {
  it('warns once before the age limit runs out and once when it has, then refuses new offline sales', () => {
    f = localFixture({ maxAgeHours: 24, warnBeforeHours: 2 });
    const { offline, clock } = f;
    storeOfflineSale(f.journal, offline, { id: 'o-1' });
    expect(offline.checkAges()).toEqual([]);
    clock.now += 22 * HOUR - 1;
    expect(offline.checkAges()).toEqual([]);
    clock.now += 1;
    const warned = offline.checkAges();
    expect(warned).toEqual([
      {
        clientTransactionId: 'o-1',
        stage: 'warn',
        message: expect.stringMatching(/must be uploaded within 2 h \(age limit 24 h\)/),
      },
    ]);
    expect(offline.checkAges()).toEqual([]);
    expect(f.events.filter((e) => e.type === 'offline.warning').map((e) => e.data)).toEqual([
      { message: warned[0]?.message, clientTransactionId: 'o-1' },
    ]);
    expect(f.sink.records().some((r) => r.level === 40 && r.clientTransactionId === 'o-1' && r.stage === 'warn')).toBe(
      true,
    );

    clock.now += 2 * HOUR;
    expect(offline.checkAges()).toMatchObject([
      { stage: 'expired', message: expect.stringMatching(/passed the 24 h age limit/) },
    ]);
    expect(offline.hook.allowed({ kind: 'sale', method: 'card', amount: 100, currency: 'EUR' })).toMatchObject({
      ok: false,
      code: 'OFFLINE_LIMIT',
      reason: expect.stringMatching(/^offline age limit 24 h reached: sale o-1 has waited 24 h/),
    });
    expect(offline.levels().age).toMatchObject({ oldestClientTransactionId: 'o-1', ratio: 1 });
  });
});

describe('offline export and read-only access', () => {
  it('exports CSV and JSON without card data, the masked PAN only', () => {
    f = localFixture();
    const fixture = f;
    // The sale's operator comes from its journal row: the clerk's, or the agent's own.
    withOperator('staff1', () => storeOfflineSale(fixture.journal, fixture.offline, { id: 'o-1', amount: 1234 }));
    storeOfflineSale(f.journal, f.offline, { id: '=cmd', amount: 50, maskedPan: '541333******0004' });
    const items = f.offline.list();
    const csv = toCsv(items);
    const json = toJson(items, '2026-03-02T10:00:00.000Z');
    for (const text of [csv, json]) {
      expect(text).not.toContain(ENCRYPTED);
      expect(text).not.toContain(PINBLOCK);
      expect(text).not.toMatch(/encryptedData|pinblock|ksn/i);
      expect(text).toContain('476173******0010');
    }
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'clientTransactionId,serverTransactionId,merchantId,state,platformStatus,amount,amountMajor,currency,clientDateTime,storedAt,lastTryAt,maskedPan,scheme,entryMode,tries,rejections,message,operator',
    );
    expect(lines[1]).toMatch(/^o-1,,,queued,,1234,12\.34,EUR,.*,staff1$/);
    expect(lines[2]).toMatch(/,agent$/);
    // A value a spreadsheet would run as a formula is defused.
    expect(lines[2]).toMatch(/^'=cmd,/);
    expect(JSON.parse(json).items[0]).toMatchObject({
      clientTransactionId: 'o-1',
      amount: 1234,
      amountMajor: '12.34',
      operator: 'staff1',
      history: [],
    });
  });

  it('reads the queue through a read-only connection that cannot write', () => {
    const fixture = localFixture();
    f = fixture;
    storeOfflineSale(fixture.journal, fixture.offline, { id: 'o-1' });
    const ro = openQueueReadOnly(`${fixture.dir}/data`);
    try {
      expect(ro.queue.list().map((i) => i.clientTransactionId)).toEqual(['o-1']);
      expect(() => ro.queue.db.prepare('DELETE FROM offline_queue').run()).toThrow(/readonly/i);
    } finally {
      ro.close();
    }
    expect(() => openQueueReadOnly(`${fixture.dir}/nowhere`)).toThrow(/no journal at .*nowhere.*check dataDir/);
  });

  it('reads a database the agent closed cleanly (no -wal file left)', () => {
    f = localFixture();
    storeOfflineSale(f.journal, f.offline, { id: 'o-1' });
    f.journal.close();
    const ro = openQueueReadOnly(`${f.dir}/data`);
    try {
      expect(ro.queue.list()).toHaveLength(1);
    } finally {
      ro.close();
    }
    // An old file without the queue table reads as empty instead of failing.
    const bare = new Database(`${f.dir}/data/old.sqlite`);
    bare.exec('CREATE TABLE transactions (client_id TEXT PRIMARY KEY)');
    bare.close();
    const old = openQueueReadOnly(`${f.dir}/data`, 'old.sqlite');
    try {
      expect(old.queue.exists()).toBe(false);
    } finally {
      old.close();
    }
  });
});
