import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/payments/journal/index.js';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { fillJournal, freeJournal } from '../helpers/full-journal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';

/**
 * Capture, cancel and refund answered while the journal cannot write (docs/architecture.md,
 * "Journal", writes that fail; "Capture, cancel, refund"): the platform's answer is kept and
 * written once space is freed, never lost, never sent again; the caller is told the outcome
 * is being recorded (row in_flight), never a success or failure the journal does not hold.
 * The journal is made full for real with SQLite's own limit (test/helpers/full-journal.ts).
 */

/** The row as it is on disk, read by a second connection (not the journal's memory). */
function onDisk(dataDir: string, id: string): Record<string, unknown> | undefined {
  const db = new Database(join(dataDir, 'journal.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT state, captured_amount, refunded_amount, cancelled_amount FROM transactions WHERE client_id = ?').get(id) as Record<string, unknown> | undefined;
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
function filling(): { wrap: (p: PaymentsPlatform) => PaymentsPlatform; fillAfter: (route: Route, journal: Journal) => void; calls: Record<Route, number> } {
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
    process: (...a) => p.process(...a),
    qrTerminalPayment: (...a) => p.qrTerminalPayment(...a),
    captureAll: (...a) => p.captureAll(...a),
    allowedOperations: (...a) => p.allowedOperations(...a),
    refundByWeb: (...a) => p.refundByWeb(...a),
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

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
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
    expect(view.message).toMatch(/outcome being recorded.*journal cannot write \(SQLITE_FULL\).*do not repeat the refund/);
    expect(onDisk(dataDir, view.clientTransactionId)?.state).toBe('in_flight');
    expect(t.journal.writeStatus()).toMatchObject({ writable: false });
    // The amount stays held: a second refund is refused by the local rules, nothing sent.
    await expect(t.service.refund(sale.clientTransactionId, { amount: 100 })).rejects.toMatchObject({ code: 'PAYMENT_RULE' });
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
    const sale = await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', merchantId: 'm-1002' })).done;
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
    const sale = await (await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR', merchantId: 'm-1002' })).done;
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
    const sale = await (await t.service.startSale({ method: 'card', amount: 2_500, currency: 'EUR', merchantId: 'm-1002' })).done;
    expect(sale.state).toBe('approved');
    await until(() => (t.service.row(sale.clientTransactionId)?.message ?? '').includes('capture waits'));
    expect(t.service.row(sale.clientTransactionId)?.message).toMatch(/capture waits until the journal can write/);
    expect(t.service.row(sale.clientTransactionId)?.capturedAmount).toBe(0);
    freeJournal(t.journal);
    await t.service.idle();
    expect(onDisk(dataDir, sale.clientTransactionId)).toMatchObject({ state: 'approved', captured_amount: 2_500 });
    const captures = fixture.demo.platform.payments.ledger().filter((l) => l.paymentClientTransactionId === sale.clientTransactionId && l.kind === 'capture');
    expect(captures).toHaveLength(1);
  });
});
