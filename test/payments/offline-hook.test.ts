import { describe, expect, it } from 'vitest';
import type { OfflineCandidate, OfflineHook, OfflineSale } from '../../src/payments/offline-hook.js';
import { visaCard } from '../helpers/fake-peripherals.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';

const fixture = useDemoPlatform();
let t: Terminal;

/** A queue in the journal's database, as the offline store keeps one. */
class TestQueue implements OfflineHook {
  candidates: OfflineCandidate[] = [];
  decision: { ok: true } | { ok: false; reason: string } = { ok: true };
  allowedNow = true;
  failStore = false;

  allowed(): { ok: true } | { ok: false; reason: string } {
    return this.allowedNow ? { ok: true } : { ok: false, reason: 'offline total reached' };
  }

  eligible(c: OfflineCandidate): { ok: true } | { ok: false; reason: string } {
    this.candidates.push(c);
    return this.decision;
  }

  store(sale: OfflineSale): void {
    // The journal's connection: the row goes into the transaction payments opened for it.
    const db = t.journal.db;
    db.exec(
      'CREATE TABLE IF NOT EXISTS test_queue (client_id TEXT PRIMARY KEY, body TEXT NOT NULL, journal_state TEXT NOT NULL)',
    );
    db.prepare('INSERT INTO test_queue VALUES (?, ?, ?)').run(
      sale.row.clientTransactionId,
      JSON.stringify(sale.body),
      sale.row.state,
    );
    if (this.failStore) throw new Error('disk full');
  }
}

const queued = (): Array<{ client_id: string; body: string; journal_state: string }> => {
  try {
    return t.journal.db.prepare('SELECT * FROM test_queue').all() as Array<{
      client_id: string;
      body: string;
      journal_state: string;
    }>;
  } catch {
    return [];
  }
};

/** A dead port: the process call never reaches a platform. */
const unreachable = 'https://127.0.0.1:9';

describe('offline hook', () => {
  it('the platform cannot be reached and the reader approved offline: offline_stored in the same transaction as the enqueue', async () => {
    const queue = new TestQueue();
    t = await fixture.startTerminal({ baseUrl: unreachable, offline: queue });
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true });
    const started = await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'offline_stored', offline: true, message: /approved offline: 20.00 EUR/ });
    expect(t.devices.reader.requests[0]?.offlineAllowed).toBe(true);
    expect(t.devices.reader.results).toEqual([{ approved: true, text: 'Approved' }]);
    expect(queue.candidates[0]).toMatchObject({
      entryMode: 'ContactChip',
      maskedPan: '411111******1111',
      offlineApproved: true,
    });
    const [item] = queued();
    expect(item?.client_id).toBe(started.clientTransactionId);
    expect(item?.journal_state).toBe('offline_stored');
    const body = JSON.parse(item?.body ?? '{}') as {
      clientNewTransactionId: string;
      clientDateTime: string;
      instrument: { card: { encryptedData: string } };
    };
    expect(body.clientNewTransactionId).toBe(started.clientTransactionId);
    expect(body.instrument.card.encryptedData).toBe(visaCard().encryptedData);
    // Card data kept until the upload; never in the view.
    expect(t.service.row(started.clientTransactionId)?.cardSecret?.encryptedData).toBe(visaCard().encryptedData);
    expect(JSON.stringify(view)).not.toContain(visaCard().encryptedData);
  });

  it('the store throws: the journal update is rolled back with it and the sale fails, nothing charged', async () => {
    const queue = new TestQueue();
    queue.failStore = true;
    t = await fixture.startTerminal({ baseUrl: unreachable, offline: queue });
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true });
    const view = await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' })).done;
    expect(view).toMatchObject({
      state: 'failed',
      offline: false,
      message: /offline store refused the sale \(disk full\)/,
    });
    expect(queued()).toEqual([]);
    expect(t.devices.reader.results).toEqual([{ approved: false, text: 'Not approved' }]);
  });

  it('not eligible, or the card did not approve offline: failed with the reason', async () => {
    const queue = new TestQueue();
    queue.decision = { ok: false, reason: 'above the offline floor limit of 250.00 EUR' };
    t = await fixture.startTerminal({ baseUrl: unreachable, offline: queue });
    t.devices.reader.next(
      { outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true },
      { outcome: 'ok', entryMode: 'ContactChip', card: visaCard() },
    );
    expect(await (await t.service.startSale({ method: 'card', amount: 30_000, currency: 'EUR' })).done).toMatchObject({
      state: 'failed',
      message: /cannot be taken offline: above the offline floor limit of 250.00 EUR; nothing was charged/,
    });
    expect(await (await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR' })).done).toMatchObject({
      state: 'failed',
      message: /card did not approve offline/,
    });
  });

  it('the hook says no before the card is read: the reader is told offline is not allowed; MOTO never goes offline', async () => {
    const queue = new TestQueue();
    queue.allowedNow = false;
    t = await fixture.startTerminal({ offline: queue });
    await (
      await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR' })
    ).done;
    expect(t.devices.reader.requests[0]?.offlineAllowed).toBe(false);
    queue.allowedNow = true;
    await (
      await t.service.startSale({ method: 'moto', amount: 1_000, currency: 'EUR', moto: { phone: '+49301234' } })
    ).done;
    expect(t.devices.reader.requests[1]?.offlineAllowed).toBe(false);
  });

  it('a network error after the request may have left is an unknown outcome, never an offline sale', async () => {
    const queue = new TestQueue();
    t = await fixture.startTerminal({ offline: queue });
    fixture.demo.platform.faults.set('process', { drop: 'before', times: 1 });
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true });
    const view = await (await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR' })).done;
    fixture.demo.platform.faults.clear();
    expect(view.state).toBe('failed');
    expect(queue.candidates).toEqual([]);
  });
});
