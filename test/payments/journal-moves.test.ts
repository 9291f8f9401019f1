import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/core/errors.js';
import type { OperationKind, TransactionState } from '../../src/payments/api.js';
import { Journal } from '../../src/payments/journal/index.js';
import { moveAllowed } from '../../src/payments/journal/moves.js';
import { fillJournal, freeJournal } from '../helpers/full-journal.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

// The journal's state moves (docs/journal.md, "Journal", state moves), written out
// here from the table in that section, independently of src/payments/journal/moves.ts.
const STATES: TransactionState[] = [
  'created',
  'awaiting_customer',
  'in_flight',
  'pending',
  'approved',
  'declined',
  'failed',
  'cancelled',
  'reversing',
  'reversed',
  'offline_stored',
  'needs_attention',
];
const FINAL: TransactionState[] = ['approved', 'declined', 'failed', 'cancelled', 'reversed', 'needs_attention'];
const KINDS: OperationKind[] = ['sale', 'capture', 'cancel', 'refund'];

/** What the table says, for a row of `kind` in `from` asked to move to `to`. */
function expected(kind: OperationKind, from: TransactionState, to: TransactionState, platformSaid: boolean): boolean {
  if (from === to) return true;
  if (!FINAL.includes(from) || from === 'needs_attention') return true;
  if (FINAL.includes(to)) return platformSaid;
  if (from !== 'failed') return false;
  return kind === 'sale' ? to === 'reversing' : to === 'in_flight';
}

describe('which state moves the journal records', () => {
  it('lets a row that is not final yet move to any state, on a local decision or the platform word', () => {
    for (const kind of KINDS) {
      for (const from of [
        'created',
        'awaiting_customer',
        'in_flight',
        'pending',
        'reversing',
        'offline_stored',
      ] as const) {
        for (const to of STATES) {
          expect(moveAllowed(kind, from, to, false), `${kind} ${from} -> ${to}`).toBe(true);
          expect(moveAllowed(kind, from, to, true), `${kind} ${from} -> ${to} (platform)`).toBe(true);
        }
      }
    }
  });

  it('lets a sale set aside for a person (needs_attention) be settled by any later resolution', () => {
    for (const to of STATES) {
      expect(moveAllowed('sale', 'needs_attention', to, false), to).toBe(true);
      expect(moveAllowed('refund', 'needs_attention', to, false), to).toBe(true);
    }
  });

  it('never turns an approved sale declined, failed or cancelled on a local decision that raced with it (a QR expiry, a timeout)', () => {
    expect(moveAllowed('sale', 'approved', 'failed', false)).toBe(false);
    expect(moveAllowed('sale', 'approved', 'declined', false)).toBe(false);
    expect(moveAllowed('sale', 'approved', 'cancelled', false)).toBe(false);
    expect(moveAllowed('sale', 'declined', 'approved', false)).toBe(false);
    expect(moveAllowed('sale', 'cancelled', 'approved', false)).toBe(false);
    expect(moveAllowed('refund', 'approved', 'failed', false)).toBe(false);
  });

  it('moves a final sale to another final state on the platform word (cancelled at the platform, an authorization expired)', () => {
    expect(moveAllowed('sale', 'approved', 'cancelled', true)).toBe(true);
    expect(moveAllowed('sale', 'approved', 'reversed', true)).toBe(true);
    expect(moveAllowed('sale', 'approved', 'failed', true)).toBe(true);
    expect(moveAllowed('sale', 'failed', 'approved', true)).toBe(true);
    expect(moveAllowed('sale', 'declined', 'approved', true)).toBe(true);
  });

  it('never sends a final row back to waiting, pending, stored offline or in flight, even on a stale platform answer', () => {
    for (const from of ['approved', 'declined', 'cancelled', 'reversed'] as const) {
      for (const to of [
        'created',
        'awaiting_customer',
        'in_flight',
        'pending',
        'reversing',
        'offline_stored',
      ] as const) {
        expect(moveAllowed('sale', from, to, true), `${from} -> ${to}`).toBe(false);
        expect(moveAllowed('refund', from, to, true), `refund ${from} -> ${to}`).toBe(false);
      }
    }
    expect(moveAllowed('sale', 'failed', 'awaiting_customer', true)).toBe(false);
    expect(moveAllowed('sale', 'failed', 'pending', true)).toBe(false);
  });

  it('reopens a failed row only to send an operation again under its own id, or to reverse a sale that landed after all', () => {
    expect(moveAllowed('refund', 'failed', 'in_flight', false)).toBe(true);
    expect(moveAllowed('cancel', 'failed', 'in_flight', false)).toBe(true);
    expect(moveAllowed('capture', 'failed', 'in_flight', false)).toBe(true);
    expect(moveAllowed('sale', 'failed', 'reversing', false)).toBe(true);
    // Not the other way round: a sale is never sent twice, an operation is never reversed.
    expect(moveAllowed('sale', 'failed', 'in_flight', false)).toBe(false);
    expect(moveAllowed('refund', 'failed', 'reversing', false)).toBe(false);
  });

  it('agrees with the table in docs/architecture.md for every kind, pair of states and source', () => {
    for (const kind of KINDS) {
      for (const from of STATES) {
        for (const to of STATES) {
          for (const platformSaid of [false, true]) {
            expect(
              moveAllowed(kind, from, to, platformSaid),
              `${kind} ${from} -> ${to}${platformSaid ? ' (platform)' : ''}`,
            ).toBe(expected(kind, from, to, platformSaid));
          }
        }
      }
    }
  });
});

describe('the journal recording a state move', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    while (cleanups.length > 0) cleanups.pop()?.();
  });

  function openJournal(): { journal: Journal; lines: () => Array<Record<string, unknown>> } {
    const { dir, cleanup } = tempDir('journal-moves-');
    const { log, sink } = testLogger('debug');
    const journal = new Journal({ dataDir: join(dir, 'data'), log });
    cleanups.push(cleanup, () => journal.close());
    return {
      journal,
      lines: () => sink.records().filter((r) => typeof r.msg === 'string' && r.msg.includes('refused a state move')),
    };
  }

  function approvedSale(journal: Journal, id = 's-1'): void {
    journal.insert({
      clientTransactionId: id,
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T10:00:00.000Z',
    });
    journal.update(id, { state: 'approved', platformStatus: 'Accepted', message: 'approved: 10.00 EUR' });
  }

  it('keeps an approved sale approved when a late local decision says failed, writes the rest and logs the refusal with the row and both states', () => {
    const { journal, lines } = openJournal();
    approvedSale(journal);
    const row = journal.update('s-1', {
      state: 'failed',
      message: 'the QR code expired before the customer paid: nothing was charged',
      events: [{ type: 'note' }],
    });
    expect(row.state).toBe('approved');
    expect(row.message).toBe('approved: 10.00 EUR');
    expect(row.events).toEqual([{ type: 'note' }]);
    expect(journal.get('s-1')?.state).toBe('approved');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 40, clientTransactionId: 's-1', kind: 'sale', from: 'approved', to: 'failed' }),
    ]);
  });

  it('records the platform word over a final state, and says nothing in the log', () => {
    const { journal, lines } = openJournal();
    approvedSale(journal);
    const row = journal.update('s-1', {
      state: 'cancelled',
      platformStatus: 'cancelled',
      message: 'cancelled: nothing is charged',
    });
    expect(row).toMatchObject({
      state: 'cancelled',
      platformStatus: 'cancelled',
      message: 'cancelled: nothing is charged',
    });
    expect(lines()).toEqual([]);
  });

  it('keeps the platform status and events of a stale pending answer for an approved sale, not the waiting state', () => {
    const { journal } = openJournal();
    approvedSale(journal);
    const row = journal.update('s-1', {
      state: 'awaiting_customer',
      platformStatus: 'Initialized',
      qrCode: 'QR-1',
      message: 'waiting for the customer to scan and pay',
    });
    expect(row).toMatchObject({
      state: 'approved',
      platformStatus: 'Initialized',
      qrCode: 'QR-1',
      message: 'approved: 10.00 EUR',
    });
  });

  it('refuses to send a finished refund again under its own id: nothing changes and the caller is told', () => {
    const { journal, lines } = openJournal();
    approvedSale(journal);
    journal.insert({
      clientTransactionId: 'r-1',
      kind: 'refund',
      amount: 500,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T11:00:00.000Z',
      relatedClientTransactionId: 's-1',
      attempts: 1,
    });
    journal.update('r-1', { state: 'approved', message: 'refunded 5.00 EUR' });
    let thrown: unknown;
    try {
      journal.update('r-1', { state: 'in_flight', attempts: 2, message: null });
    } catch (err) {
      thrown = err;
    }
    expect(isAgentError(thrown, 'PAYMENT_STATE')).toBe(true);
    expect((thrown as Error).message).toBe('transaction r-1 is approved: it is not sent again');
    expect((thrown as { details?: unknown }).details).toEqual({ clientTransactionId: 'r-1', state: 'approved' });
    expect(journal.get('r-1')).toMatchObject({ state: 'approved', attempts: 1, message: 'refunded 5.00 EUR' });
    expect(lines()).toEqual([
      expect.objectContaining({ clientTransactionId: 'r-1', kind: 'refund', from: 'approved', to: 'in_flight' }),
    ]);
  });

  it('sends a failed refund again under its own id', () => {
    const { journal, lines } = openJournal();
    approvedSale(journal);
    journal.insert({
      clientTransactionId: 'r-2',
      kind: 'refund',
      amount: 500,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T11:00:00.000Z',
      relatedClientTransactionId: 's-1',
      attempts: 1,
    });
    journal.update('r-2', {
      state: 'failed',
      message: 'the platform could not be reached: nothing was refunded; try again',
    });
    expect(journal.update('r-2', { state: 'in_flight', attempts: 2, message: null })).toMatchObject({
      state: 'in_flight',
      attempts: 2,
      message: undefined,
    });
    expect(lines()).toEqual([]);
  });

  it('writes a patch without a state change as it is, whatever state the row is in', () => {
    const { journal } = openJournal();
    approvedSale(journal);
    expect(
      journal.update('s-1', { message: 'approved and authorized, but the capture failed: capture it later' }),
    ).toMatchObject({
      state: 'approved',
      message: 'approved and authorized, but the capture failed: capture it later',
    });
    expect(journal.update('s-1', { capturedAmount: 1000 })).toMatchObject({ state: 'approved', capturedAmount: 1000 });
  });

  it('judges a move against the outcome kept in memory while the disk is full, not the state on disk', () => {
    const { journal, lines } = openJournal();
    journal.insert({
      clientTransactionId: 's-1',
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T10:00:00.000Z',
    });
    fillJournal(journal);
    // The answer came after the request left: kept in memory, the disk still says in_flight.
    // Its events need room the full file does not have.
    const events = [{ eventType: 'authorization', note: 'x'.repeat(8000) }];
    expect(
      journal.update('s-1', { state: 'approved', platformStatus: 'Accepted', message: 'approved: 10.00 EUR', events })
        .state,
    ).toBe('approved');
    expect(journal.writeStatus().pendingWrites).toBe(1);
    expect(journal.flags('s-1')).toEqual({ kind: 'sale', state: 'approved', offline: false });
    const row = journal.update('s-1', { state: 'failed', message: 'a late local decision' });
    expect(row.state).toBe('approved');
    expect(lines()).toEqual([expect.objectContaining({ clientTransactionId: 's-1', from: 'approved', to: 'failed' })]);
    freeJournal(journal);
    expect(journal.retryWrites().writable).toBe(true);
    expect(journal.flags('s-1')).toEqual({ kind: 'sale', state: 'approved', offline: false });
    expect(journal.flags('nope')).toBeUndefined();
  });

  it('reads an offline sale as offline from its three columns, as the whole row says', () => {
    const { journal } = openJournal();
    journal.insert({
      clientTransactionId: 'o-1',
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T10:00:00.000Z',
    });
    journal.update('o-1', { state: 'offline_stored', offline: true });
    expect(journal.get('o-1')?.offline).toBe(true);
    expect(journal.flags('o-1')).toEqual({ kind: 'sale', state: 'offline_stored', offline: true });
  });

  it('still says a row is unknown when a state move names a row the journal does not have', () => {
    const { journal } = openJournal();
    let thrown: unknown;
    try {
      journal.update('nope', { state: 'failed' });
    } catch (err) {
      thrown = err;
    }
    expect(isAgentError(thrown, 'PAYMENT_NOT_FOUND')).toBe(true);
  });

  it('refuses a move without a logger too (a journal opened by a tool)', () => {
    const { dir, cleanup } = tempDir('journal-moves-');
    const journal = new Journal({ dataDir: join(dir, 'data') });
    cleanups.push(cleanup, () => journal.close());
    approvedSale(journal);
    expect(journal.update('s-1', { state: 'failed' }).state).toBe('approved');
  });
});

describe('card data as the journal records a state', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    while (cleanups.length > 0) cleanups.pop()?.();
  });

  const CARD = { encryptedData: 'ENC', ksn: 'K', expiry: '2812' };
  const PIN = { pinblock: 'PB', pinKsn: 'PK', pinblockFormat: 'ISO0' };

  function journalWithCardSale(): Journal {
    const { dir, cleanup } = tempDir('journal-card-');
    const journal = new Journal({ dataDir: join(dir, 'data') });
    cleanups.push(cleanup, () => journal.close());
    journal.insert({
      clientTransactionId: 's-1',
      kind: 'sale',
      method: 'card',
      amount: 1000,
      currency: 'EUR',
      state: 'awaiting_customer',
      clientDateTime: '2026-01-01T10:00:00.000Z',
    });
    journal.update('s-1', { state: 'in_flight', cardSecret: { ...CARD, ...PIN }, maskedPan: '476173******0010' });
    return journal;
  }

  const onDisk = (journal: Journal): unknown =>
    journal.db.prepare('SELECT card_secret FROM transactions WHERE client_id = ?').pluck().get('s-1');

  it('keeps the card data and PIN block of a sale in flight while only its message or details change', () => {
    const journal = journalWithCardSale();
    expect(
      journal.update('s-1', {
        message: 'the platform did not answer in time: checking whether it happened',
        attempts: 2,
      }).cardSecret,
    ).toEqual({ ...CARD, ...PIN });
    expect(journal.update('s-1', { message: undefined, attempts: 3 })).toMatchObject({
      message: 'the platform did not answer in time: checking whether it happened',
      attempts: 3,
    });
  });

  it('drops the card data in the write that makes the sale final, even when the same change passes card data', () => {
    const journal = journalWithCardSale();
    expect(journal.update('s-1', { state: 'approved', cardSecret: CARD }).cardSecret).toBeUndefined();
    expect(onDisk(journal)).toBeNull();
  });

  it('stores an offline sale with the card data given, never its PIN block', () => {
    const journal = journalWithCardSale();
    const stored = journal.update('s-1', {
      state: 'offline_stored',
      cardSecret: { ...CARD, encryptedData: 'ENC2', ...PIN },
    });
    expect(stored.cardSecret).toEqual({ ...CARD, encryptedData: 'ENC2' });
    expect(JSON.parse(String(onDisk(journal)))).toEqual({ ...CARD, encryptedData: 'ENC2' });
  });

  it('stores an offline sale with the card data it had, without the PIN block, when the change passes none', () => {
    const journal = journalWithCardSale();
    expect(journal.update('s-1', { state: 'offline_stored', offline: true }).cardSecret).toEqual(CARD);
    expect(JSON.parse(String(onDisk(journal)))).toEqual(CARD);
  });

  it('clears the card data of an offline sale when the change says so', () => {
    const journal = journalWithCardSale();
    expect(journal.update('s-1', { state: 'offline_stored', cardSecret: null }).cardSecret).toBeUndefined();
    expect(onDisk(journal)).toBeNull();
  });
});
