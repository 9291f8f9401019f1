import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/core/index.js';
import type { Journal } from '../../src/payments/journal/index.js';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import type { OfflineHook } from '../../src/payments/offline-hook.js';
import { AgentError } from '../../src/core/index.js';
import { boundPlatform, fillJournal, freeJournal } from '../helpers/full-journal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testLogger } from '../helpers/log-sink.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { visaCard } from '../helpers/fake-peripherals.js';
import { untilLogged } from '../helpers/wait.js';

/** The row as it is on disk, read by a second connection (not the journal's memory). */
function onDisk(dataDir: string, id: string): { state: string; server_id: string | null } | undefined {
  const db = new Database(join(dataDir, 'journal.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT state, server_id FROM transactions WHERE client_id = ?').get(id) as
      { state: string; server_id: string | null } | undefined;
  } finally {
    db.close();
  }
}

/** The AgentError a promise rejects with. */
async function rejection(fn: () => Promise<unknown>): Promise<AgentError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof AgentError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const fixture = useDemoPlatform();
const dirs: Array<() => void> = [];
let terminals: Terminal[] = [];

afterEach(async () => {
  for (const t of terminals) await t.close();
  terminals = [];
  while (dirs.length > 0) dirs.pop()?.();
});

/** A terminal whose journal fills up right after the platform answered a sale. */
async function terminalFillingAfterProcess(dataDir: string): Promise<Terminal> {
  let journal: Journal | undefined;
  const wrap = (p: PaymentsPlatform): PaymentsPlatform => ({
    ...boundPlatform(p),
    process: async (...args) => {
      const answer = await p.process(...args);
      if (journal !== undefined) fillJournal(journal);
      return answer;
    },
  });
  const t = await fixture.startTerminal({ dataDir, wrap });
  journal = t.journal;
  terminals.push(t);
  return t;
}

function charges(id: string): Array<{ kind: string; amount: number }> {
  return fixture.demo.platform.payments
    .ledger()
    .filter((l) => l.paymentClientTransactionId === id && (l.kind === 'sale' || l.kind === 'authorization'))
    .map((l) => ({ kind: l.kind, amount: l.amount }));
}

describe('a journal that cannot write', () => {
  it('charged sale, final write fails (SQLITE_FULL): the answer is kept, new sales are refused before the reader, the next start resolves it by lookup, charged once', async () => {
    const tmp = tempDir('journal-full-');
    dirs.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');
    const t = await terminalFillingAfterProcess(dataDir);
    const started = await t.service.startSale({ method: 'card', amount: 4321, currency: 'EUR' });
    const view = await started.done;
    const id = started.clientTransactionId;
    // The platform charged it; the journal could not take the answer: the disk still says in flight.
    expect(charges(id)).toHaveLength(1);
    expect(onDisk(dataDir, id)?.state).toBe('in_flight');
    // The platform's answer is kept in memory and shown.
    expect(view.state).toBe('approved');
    expect(t.journal.writeStatus()).toMatchObject({ writable: false, code: 'SQLITE_FULL' });
    // The clerk tries again: refused with the reason, the reader never asked.
    const readerCalls = t.devices.reader.requests.length;
    const refused = await rejection(() => t.service.startSale({ method: 'card', amount: 4321, currency: 'EUR' }));
    expect(refused.code).toBe(ErrorCodes.JOURNAL_UNWRITABLE);
    expect(refused.message).toMatch(/SQLITE_FULL/);
    expect(t.devices.reader.requests.length).toBe(readerCalls);
    expect(t.service.storage().journal).toMatchObject({ ok: false });
    // The agent stops (the memory is lost); the next start on the same files looks the sale up.
    await t.close();
    const again = await fixture.startTerminal({ dataDir });
    terminals.push(again);
    await again.service.recover();
    await again.service.idle();
    expect(again.service.row(id)).toMatchObject({ state: 'approved' });
    expect(onDisk(dataDir, id)?.state).toBe('approved');
    expect(charges(id)).toHaveLength(1);
    expect(again.service.storage().journal.ok).toBe(true);
  });

  it('once space is back, the kept outcome is written and sales start again', async () => {
    const tmp = tempDir('journal-full-');
    dirs.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');
    const t = await terminalFillingAfterProcess(dataDir);
    const started = await t.service.startSale({ method: 'card', amount: 1500, currency: 'EUR' });
    await started.done;
    expect(onDisk(dataDir, started.clientTransactionId)?.state).toBe('in_flight');
    freeJournal(t.journal);
    expect(t.journal.retryWrites()).toMatchObject({ writable: true, pendingWrites: 0 });
    expect(onDisk(dataDir, started.clientTransactionId)?.state).toBe('approved');
    expect(t.service.storage().journal.ok).toBe(true);
  });

  it('the write before the request leaves fails: nothing is sent, the sale ends failed (not stuck on "present the card"), nothing charged', async () => {
    const tmp = tempDir('journal-full-');
    dirs.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');
    const t = await fixture.startTerminal({ dataDir });
    terminals.push(t);
    // The journal fills up while the customer presents the card.
    t.devices.reader.next(async (req) => {
      fillJournal(t.journal);
      return { outcome: 'ok', entryMode: req.entryModes[0] ?? 'ContactChip', card: visaCard() };
    });
    const started = await t.service.startSale({ method: 'card', amount: 777, currency: 'EUR' });
    const view = await started.done;
    expect(view.state).toBe('failed');
    expect(view.message).toMatch(/nothing was charged/);
    expect(fixture.demo.platform.payments.transaction(started.clientTransactionId)).toBeUndefined();
    expect(charges(started.clientTransactionId)).toEqual([]);
    expect(onDisk(dataDir, started.clientTransactionId)?.state).toBe('awaiting_customer');
    // The next start settles what the disk still shows as waiting: nothing was sent.
    await t.close();
    const again = await fixture.startTerminal({ dataDir });
    terminals.push(again);
    await again.service.recover();
    expect(again.service.row(started.clientTransactionId)).toMatchObject({ state: 'failed' });
  });

  it('a reversal whose journal cannot write waits and goes on once it can (never given up): reversed, nothing charged', async () => {
    const { log, sink } = testLogger('info');
    let journal: Journal | undefined;
    const t = await fixture.startTerminal({
      log,
      wrap: (p) => ({
        ...boundPlatform(p),
        process: async (...args) => {
          try {
            return await p.process(...args);
          } finally {
            if (journal !== undefined) fillJournal(journal);
          }
        },
      }),
    });
    journal = t.journal;
    terminals.push(t);
    // The answer is lost and the lookup fails: the sale is reversed, with a journal that is full.
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    fixture.demo.platform.faults.set('status', { status: 503, times: 3 });
    const started = await t.service.startSale({ method: 'card', amount: 3_300, currency: 'EUR', merchantId: 'm-1002' });
    expect((await started.done).state).toBe('reversing');
    await untilLogged(sink, 'reversal waits for the journal');
    freeJournal(t.journal);
    await t.service.idle();
    expect(t.service.row(started.clientTransactionId)).toMatchObject({ state: 'reversed' });
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId, 'm-1002')).toBe(0);
  });

  it('an offline sale the full journal cannot store: failed, nothing queued, the row never shown as stored', async () => {
    let journal: Journal | undefined;
    const hook: OfflineHook = {
      eligible: () => {
        if (journal !== undefined) fillJournal(journal);
        return { ok: true };
      },
      store: (sale) => {
        // The journal's connection: the row goes into the transaction payments opened for it.
        const db = (journal as Journal).db;
        db.exec('CREATE TABLE IF NOT EXISTS test_queue (client_id TEXT PRIMARY KEY, body TEXT NOT NULL)');
        db.prepare('INSERT INTO test_queue VALUES (?, ?)').run(sale.row.clientTransactionId, JSON.stringify(sale.body));
      },
    };
    const t = await fixture.startTerminal({ baseUrl: 'https://127.0.0.1:9', offline: hook });
    journal = t.journal;
    terminals.push(t);
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true });
    const view = await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' })).done;
    expect(view.state).toBe('failed');
    expect(view.message).toMatch(/offline store refused the sale .*journal cannot write.*nothing was charged/);
    expect(view.offline).toBe(false);
    const tables = t.journal.db.prepare("SELECT name FROM sqlite_master WHERE name = 'test_queue'").all();
    expect(tables).toEqual([]);
  });

  it('a sale set aside as needs_attention with its outcome unknown is looked up at start (an older agent left it so)', async () => {
    const tmp = tempDir('journal-full-');
    dirs.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');
    const t = await fixture.startTerminal({ dataDir });
    terminals.push(t);
    const view = await (await t.service.startSale({ method: 'card', amount: 2222, currency: 'EUR' })).done;
    expect(view.state).toBe('approved');
    // What the old code wrote when the final write failed and a smaller one went through.
    const db = new Database(join(dataDir, 'journal.sqlite'));
    db.prepare(
      "UPDATE transactions SET state = 'needs_attention', platform_status = NULL, server_id = NULL, events = '[]', captured_amount = 0, message = 'outcome unknown' WHERE client_id = ?",
    ).run(view.clientTransactionId);
    db.close();
    await t.close();
    const again = await fixture.startTerminal({ dataDir });
    terminals.push(again);
    await again.service.recover();
    await again.service.idle();
    expect(again.service.row(view.clientTransactionId)).toMatchObject({ state: 'approved' });
    expect(charges(view.clientTransactionId)).toHaveLength(1);
  });
});

describe('refused before the reader is asked', () => {
  it('free space below payments.minFreeDiskMb: refused with the reason; enough space: the sale goes', async () => {
    let freeBlocks = 10;
    const t = await fixture.startTerminal({
      config: { payments: { minFreeDiskMb: 64 } },
      statfs: () => ({ bavail: freeBlocks, bsize: 1024 * 1024 }),
    });
    const refused = await rejection(() => t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' }));
    expect(refused.code).toBe(ErrorCodes.DISK_SPACE_LOW);
    expect(refused.message).toMatch(/10 MB free.*minFreeDiskMb \(64 MB\)/);
    expect(t.devices.reader.requests).toHaveLength(0);
    expect(t.service.storage().disk).toMatchObject({ ok: false });
    expect(t.service.list()).toHaveLength(0);
    freeBlocks = 100;
    const view = await (await t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' })).done;
    expect(view.state).toBe('approved');
  });

  it('an unknown merchant: 400-class AUTH_NO_MERCHANT before the card', async () => {
    const t = await fixture.startTerminal();
    const refused = await rejection(() =>
      t.service.startSale({ method: 'card', amount: 100, currency: 'EUR', merchantId: 'm-nobody' }),
    );
    expect(refused.code).toBe(ErrorCodes.AUTH_NO_MERCHANT);
    expect(refused.message).toMatch(/m-nobody is not one of this terminal's merchants/);
    expect(t.devices.reader.requests).toHaveLength(0);
    expect(t.service.list()).toHaveLength(0);
  });

  it('above the per-sale maximum: refused naming it (default 100000.00, per currency in payments.maxSaleAmount)', async () => {
    const t = await fixture.startTerminal({
      config: { payments: { maxSaleAmount: { default: 100_000, JPY: 5_000_000 } } },
    });
    const huge = await rejection(() =>
      t.service.startSale({ method: 'card', amount: Number.MAX_SAFE_INTEGER, currency: 'EUR' }),
    );
    expect(huge.code).toBe(ErrorCodes.AMOUNT_INVALID);
    expect(huge.message).toMatch(/90071992547409\.91 EUR is above the per-sale maximum of 100000\.00 EUR/);
    const jpy = await rejection(() => t.service.startSale({ method: 'card', amount: 5_000_001, currency: 'JPY' }));
    expect(jpy.message).toMatch(/maximum of 5000000 JPY/);
    expect(t.devices.reader.requests).toHaveLength(0);
    const atMax = await (await t.service.startSale({ method: 'card', amount: 10_000_000, currency: 'EUR' })).done;
    expect(atMax.state).not.toBe('awaiting_customer');
    expect(t.devices.reader.requests).toHaveLength(1);
  });
});
