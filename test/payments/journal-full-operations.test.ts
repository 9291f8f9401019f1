import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/payments/journal/index.js';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { boundPlatform, fillJournal, freeJournal } from '../helpers/full-journal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * Capture, cancel and refund answered while the journal cannot write (docs/journal.md,
 * "Journal", writes that fail; "Capture, cancel, refund"): the platform's answer is kept and
 * written once space is freed, never lost, never sent again; the caller is told the outcome
 * is being recorded (row in_flight), never a success or failure the journal does not hold.
 * The journal is made full for real with SQLite's own limit (test/helpers/full-journal.ts).
 */

/** The row as it is on disk, read by a second connection (not the journal's memory). */
function onDisk(dataDir: string, id: string): Record<string, unknown> | undefined {
  const db = new Database(join(dataDir, 'journal.sqlite'), { readonly: true });
  try {
    return db
      .prepare('SELECT state, captured_amount, refunded_amount, cancelled_amount FROM transactions WHERE client_id = ?')
      .get(id) as Record<string, unknown> | undefined;
  } finally {
    db.close();
  }
}

const fixture = useDemoPlatform();
const dirs: Array<() => void> = [];
afterEach(() => {
  while (dirs.length > 0) dirs.pop()?.();
});

function dataDirFor(): string {
  const tmp = tempDir('journal-full-ops-');
  dirs.push(tmp.cleanup);
  return join(tmp.dir, 'data');
}

type Route = 'refund' | 'cancel' | 'capture' | 'status';

/** The platform client with the journal filled right after `route` answers (armed by `fillAfter`), and its calls counted. */
function filling(): {
  wrap: (p: PaymentsPlatform) => PaymentsPlatform;
  fillAfter: (route: Route, journal: Journal) => void;
  calls: Record<Route, number>;
} {
  let armed: { route: Route; journal: Journal } | undefined;
  const calls: Record<Route, number> = { refund: 0, cancel: 0, capture: 0, status: 0 };
  const after = async <T>(route: Route, call: () => Promise<T>): Promise<T> => {
    calls[route]++;
    try {
      return await call();
    } finally {
      if (armed?.route === route) {
        fillJournal(armed.journal);
        armed = undefined;
      }
    }
  };
  const wrap = (p: PaymentsPlatform): PaymentsPlatform => ({
    ...boundPlatform(p),
    refund: (...a) => after('refund', () => p.refund(...a)),
    cancel: (...a) => after('cancel', () => p.cancel(...a)),
    capture: (...a) => after('capture', () => p.capture(...a)),
    status: (...a) => after('status', () => p.status(...a)),
  });
  return { wrap, fillAfter: (route, journal) => (armed = { route, journal }), calls };
}

function refunds(saleId: string): number[] {
  return fixture.demo.platform.payments
    .ledger()
    .filter((l) => l.paymentClientTransactionId === saleId && l.kind === 'refund')
    .map((l) => l.amount);
}

describe('an operation answered while the journal cannot write', () => {
  it('refund: told "outcome being recorded" (in flight, amount held); written once space is freed, sent once', async () => {
    const dataDir = dataDirFor();
    const f = filling();
    const t: Terminal = await fixture.startTerminal({ dataDir, wrap: f.wrap });
    const sale = await (await t.service.startSale({ method: 'card', amount: 5_000, currency: 'EUR' })).done;
    expect(sale.state).toBe('approved');
    f.fillAfter('refund', t.journal);
    const view = await t.service.refund(sale.clientTransactionId, { amount: 5_000 });
    // Not "refunded" and not a failure: the outcome is being recorded.
    expect(view.state).toBe('in_flight');
    expect(view.message).toMatch(
      /outcome being recorded.*journal cannot write \(SQLITE_FULL\).*do not repeat the refund/,
    );
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('in_flight');
    expect(t.journal.writeStatus()).toMatchObject({ writable: false });
    // The amount stays held: a second refund is refused by the local rules, nothing sent.
    await expect(t.service.refund(sale.clientTransactionId, { amount: 100 })).rejects.toMatchObject({
      code: 'PAYMENT_RULE',
    });
    expect(f.calls.refund).toBe(1);
    freeJournal(t.journal);
    await t.service.idle();
    const written = await fixture.final(t, await t.service.get(view.clientTransactionId));
    expect(written.state).toBe('approved');
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('approved');
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ refunded_amount: 5_000 });
    expect(f.calls.refund).toBe(1);
    expect(refunds(sale.clientTransactionId)).toEqual([5_000]);
  });

  it('cancel: the agent stops before space is freed; the next start looks it up and records it (cancelled once)', async () => {
    const dataDir = dataDirFor();
    const f = filling();
    const t = await fixture.startTerminal({ dataDir, wrap: f.wrap, config: { payments: { captureMode: 'deferred' } } });
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    f.fillAfter('cancel', t.journal);
    const view = await t.service.cancel(sale.clientTransactionId, { approvalCode: '4711' });
    expect(view.state).toBe('in_flight');
    expect(view.message).toMatch(/outcome being recorded/);
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('in_flight');
    await t.close();
    // The strict platform completes a cancel it answered pending on its own clock.
    fixture.demo.platform.payments.complete(sale.serverTransactionId ?? sale.clientTransactionId);
    const again = await fixture.startTerminal({ dataDir, config: { payments: { captureMode: 'deferred' } } });
    await again.service.recover();
    await again.service.idle();
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('approved');
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ state: 'cancelled', cancelled_amount: 2_000 });
    expect(fixture.demo.platform.payments.netCharged(sale.clientTransactionId, 'm-1002')).toBe(0);
  });

  it('capture: the capture row and the sale reach the disk together once space is freed', async () => {
    const dataDir = dataDirFor();
    const f = filling();
    const t = await fixture.startTerminal({ dataDir, wrap: f.wrap, config: { payments: { captureMode: 'deferred' } } });
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    f.fillAfter('capture', t.journal);
    const view = await t.service.capture(sale.clientTransactionId);
    expect(view.state).toBe('in_flight');
    expect(view.message).toMatch(/outcome being recorded.*do not repeat the capture/);
    // Neither half on disk, nor in what the agent shows.
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('in_flight');
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ captured_amount: 0 });
    expect((await t.service.get(sale.clientTransactionId)).capturedAmount).toBe(0);
    freeJournal(t.journal);
    await t.service.idle();
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('approved');
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ captured_amount: 3_000 });
    expect(f.calls.capture).toBe(1);
  });

  it('a refund whose answer was lost, found by the lookup while the journal is full: kept and written, not looked up again', async () => {
    const dataDir = dataDirFor();
    const f = filling();
    const t = await fixture.startTerminal({ dataDir, wrap: f.wrap });
    const sale = await (await t.service.startSale({ method: 'card', amount: 4_000, currency: 'EUR' })).done;
    fixture.demo.platform.faults.set('refund', { drop: 'after', times: 1 });
    // The first lookup answers; then the journal is full.
    f.fillAfter('status', t.journal);
    const view = await t.service.refund(sale.clientTransactionId, { amount: 1_500 });
    expect(view.state).toBe('in_flight');
    expect(view.message).toMatch(/outcome being recorded/);
    const lookups = f.calls.status;
    freeJournal(t.journal);
    await t.service.idle();
    const written = await fixture.final(t, await t.service.get(view.clientTransactionId));
    expect(written.state).toBe('approved');
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ refunded_amount: 1_500 });
    expect(refunds(sale.clientTransactionId)).toEqual([1_500]);
    expect(f.calls.refund).toBe(1);
    // Written from the kept answer (the strict profile's completion is looked up by fixture.final only).
    expect(f.calls.status - lookups).toBeLessThanOrEqual(5);
  });

  it('immediate capture whose row cannot be written waits for the journal, then captures once', async () => {
    const dataDir = dataDirFor();
    let journal: Journal | undefined;
    let fill = true;
    const t = await fixture.startTerminal({
      dataDir,
      config: { payments: { captureMode: 'immediate' } },
      wrap: (p) => ({
        ...filling().wrap(p),
        process: async (...a) => {
          const answer = await p.process(...a);
          if (fill && journal !== undefined) fillJournal(journal);
          fill = false;
          return answer;
        },
      }),
    });
    journal = t.journal;
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 2_500, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(sale.state).toBe('approved');
    await untilTrue('the capture waiting for the journal', () =>
      (t.service.row(sale.clientTransactionId)?.message ?? '').includes('capture waits'),
    );
    expect(t.service.row(sale.clientTransactionId)?.message).toMatch(/capture waits until the journal can write/);
    expect(t.service.row(sale.clientTransactionId)?.capturedAmount).toBe(0);
    freeJournal(t.journal);
    await t.service.idle();
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ state: 'approved', captured_amount: 2_500 });
    const captures = fixture.demo.platform.payments
      .ledger()
      .filter((l) => l.paymentClientTransactionId === sale.clientTransactionId && l.kind === 'capture');
    expect(captures).toHaveLength(1);
  });
});

describe('a kept write carried by a transaction that fails', () => {
  it('stays kept (shown, written later): the rollback never takes an outcome already kept in memory with it', async () => {
    const { Journal } = await import('../../src/payments/journal/index.js');
    const dataDir = dataDirFor();
    // No timer flush during the test: what is kept stays in memory until asked.
    const journal = new Journal({ dataDir, writeRetry: { baseMs: 60_000, capMs: 60_000, attempts: 1 } });
    try {
      const row = (id: string): Parameters<Journal['insert']>[0] => ({
        clientTransactionId: id,
        kind: 'sale',
        amount: 900,
        currency: 'EUR',
        state: 'in_flight',
        clientDateTime: '2026-01-01T00:00:00.000Z',
        message: 'a',
      });
      journal.insert(row('A'));
      journal.insert(row('B'));
      fillJournal(journal);
      // An outcome after the request left, refused by the full journal: kept.
      journal.update('A', { state: 'approved', message: 'z'.repeat(3_000) });
      expect(onDisk(dataDir, 'A')?.state).toBe('in_flight');
      freeJournal(journal);
      // A transaction writes A (carrying its kept outcome), then fails on B: all of it is rolled back.
      expect(() =>
        journal.transaction(() => {
          journal.update('A', { refundedAmount: 100 });
          // The file may not grow from here: B's long message cannot be written.
          journal.db.pragma(`max_page_count = ${Number(journal.db.pragma('page_count', { simple: true }))}`);
          journal.update('B', { message: 'y'.repeat(40_000) });
        }),
      ).toThrow(/journal cannot write/);
      expect(onDisk(dataDir, 'A')).toMatchObject({ state: 'in_flight', refunded_amount: 0 });
      expect(journal.get('A')).toMatchObject({ state: 'approved', refundedAmount: 0 });
      expect(journal.get('A')?.message).toHaveLength(3_000);
      freeJournal(journal);
      expect(journal.retryWrites()).toMatchObject({ writable: true, pendingWrites: 0 });
      expect(onDisk(dataDir, 'A')).toMatchObject({ state: 'approved', refunded_amount: 0 });
    } finally {
      journal.close();
    }
  });
});
