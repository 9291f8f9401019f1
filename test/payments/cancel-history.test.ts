import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cancelBody,
  cancelsInHistory,
  instrumentTypeOf,
  otherDoneCancels,
  ourCancelIn,
} from '../../src/payments/cancel-outcome.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import { Journal } from '../../src/payments/journal/journal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { saleRow } from './sale-row.js';

// A cancel as the contract has it and finding our cancel in a sale's history when its answer
// was lost (docs/platform-contract.md, "Endpoints", cancel, and "Decisions where the spec is
// silent", recognising a cancel whose answer was lost). No platform: histories written here.
const cancelRow = (over: Partial<JournalRow> = {}): JournalRow =>
  saleRow({
    clientTransactionId: 'c-2',
    kind: 'cancel',
    relatedClientTransactionId: 's-1',
    amount: 500,
    clientDateTime: '2026-03-01T10:05:00.000Z',
    cancelReason: 'Functional',
    state: 'in_flight',
    ...over,
  });
const request = (over: Record<string, unknown> = {}) => ({
  eventType: 'cancelRequest',
  cancelAmount: { amount: 500, currency: 'EUR' },
  ...over,
});
const result = (r: unknown, eventType = 'walletACancelResult') => ({ eventType, result: r });
const outcomeOf = (...events: Array<Record<string, unknown>>) => cancelsInHistory({ events }).map((c) => c.outcome);

describe('the cancel request sent', () => {
  it('names the wallet for a wallet sale and "card" for any other method', () => {
    expect(instrumentTypeOf(saleRow({ method: 'walletA' }))).toBe('walletA');
    expect(instrumentTypeOf(saleRow({ method: 'walletB' }))).toBe('walletB');
    expect(instrumentTypeOf(saleRow({ method: 'card' }))).toBe('card');
    expect(instrumentTypeOf(saleRow({ method: 'moto' }))).toBe('card');
  });

  it("carries exactly the cancel row's time, amount and reason, the sale's currency, and the approval code only when given", () => {
    const sale = saleRow({ method: 'walletB', currency: 'JPY' });
    expect(cancelBody({ channel: 'Pos' }, sale, cancelRow({ cancelReason: 'Technical' }))).toStrictEqual({
      clientDateTime: '2026-03-01T10:05:00.000Z',
      channel: 'Pos',
      cancelReason: 'Technical',
      cancelAmount: { amount: 500, currency: 'JPY' },
      instrument: { instrumentType: 'walletB' },
    });
    expect(cancelBody({ channel: 'Pos' }, sale, cancelRow({ cancelReason: undefined }), '1234')).toMatchObject({
      cancelReason: 'Functional',
      approvalCode: '1234',
    });
  });
});

describe("the cancels a sale's history shows", () => {
  it('each event with a cancel amount is one request, read leniently: amount as a whole number or digits, or a value string; texts only when not empty', () => {
    const seen = cancelsInHistory({
      events: [
        { eventType: 'saleRequest', amount: { amount: 1000 } },
        request({
          cancelAmount: { amount: '500', currency: 'EUR' },
          cancelReason: 'Functional',
          clientDateTime: '2026-03-01T10:05:00Z',
        }),
        request({ cancelAmount: { amount: 5.5, currency: '' }, cancelReason: '' }),
        request({ cancelAmount: { amount: '5.00' } }),
        request({ cancelAmount: { amount: Number.POSITIVE_INFINITY } }),
        request({ cancelAmount: [500] }),
        request({ cancelAmount: null }),
        request({ cancelAmount: '500' }),
        request({ cancelAmount: { value: '700', currency: 'EUR' } }),
        'not an event',
      ],
    });
    expect(seen).toStrictEqual([
      {
        amount: 500,
        currency: 'EUR',
        reason: 'Functional',
        clientDateTime: '2026-03-01T10:05:00Z',
        outcome: 'unknown',
      },
      { amount: undefined, currency: undefined, reason: undefined, clientDateTime: undefined, outcome: 'unknown' },
      { amount: undefined, currency: undefined, reason: undefined, clientDateTime: undefined, outcome: 'unknown' },
      { amount: undefined, currency: undefined, reason: undefined, clientDateTime: undefined, outcome: 'unknown' },
      { amount: 700, currency: 'EUR', reason: undefined, clientDateTime: undefined, outcome: 'unknown' },
    ]);
    expect(cancelsInHistory({ events: 'none' })).toEqual([]);
  });

  it("a request's outcome is the first later cancel event with a result, before the next request", () => {
    expect(outcomeOf(request(), { eventType: 'paymentResult', result: 'Refused' }, result('Accepted'))).toEqual([
      'accepted',
    ]);
    expect(outcomeOf(request(), result(''), result(null), result('Refused'), result('Accepted'))).toEqual(['refused']);
    expect(outcomeOf(request(), result('Accepted', 'CANCEL_RESULT'))).toEqual(['accepted']);
    expect(outcomeOf(request(), { result: 'Accepted' })).toEqual(['unknown']);
    expect(outcomeOf(request(), request(), result('Refused'))).toEqual(['unknown', 'refused']);
  });

  it('a refusal in any words is refused, even when it also says "cancel"; acceptance in any words is accepted; anything else unknown', () => {
    for (const r of ['Refused', 'DECLINED', 'rejected', 'Failed to cancel', 'error', 'access denied'])
      expect(outcomeOf(request(), result(r)), r).toEqual(['refused']);
    for (const r of ['Accepted', 'SUCCESS', 'approved', 'ok', 'OK', 'done', 'Cancelled', 'reversed', 'voided'])
      expect(outcomeOf(request(), result(r)), r).toEqual(['accepted']);
    for (const r of ['pending', 'okay', 'not ok', 'in progress'])
      expect(outcomeOf(request(), result(r)), r).toEqual(['unknown']);
  });
});

describe('our cancel, found without an id of its own', () => {
  const op = cancelRow();

  it('the request with our time and amount, even when another request of that amount has no time', () => {
    expect(
      ourCancelIn(
        {
          events: [
            request(),
            result('Refused'),
            request({ clientDateTime: '2026-03-01T10:05:00Z' }),
            result('Accepted'),
          ],
        },
        op,
        [],
      ),
    ).toBe('accepted');
    expect(
      ourCancelIn(
        { events: [request({ clientDateTime: op.clientDateTime, cancelAmount: { amount: 400 } }), result('Accepted')] },
        op,
        [],
      ),
    ).toBeUndefined();
    expect(
      ourCancelIn(
        { events: [request({ clientDateTime: 'not a time' }), result('Accepted')] },
        cancelRow({ clientDateTime: 'not a time either' }),
        [],
      ),
    ).toBeUndefined();
    expect(
      ourCancelIn(
        { events: [request({ clientDateTime: 'at once' }), result('Accepted')] },
        cancelRow({ clientDateTime: 'at once' }),
        [],
      ),
    ).toBe('accepted');
    expect(ourCancelIn({ events: [] }, op, [])).toBeUndefined();
  });

  it('an undated request counts only when its amount, currency and reason fit ours, where it states them', () => {
    expect(ourCancelIn({ events: [request({ cancelAmount: { amount: 500 } }), result('Accepted')] }, op, [])).toBe(
      'accepted',
    );
    expect(
      ourCancelIn(
        { events: [request({ cancelAmount: { amount: 500, currency: 'USD' } }), result('Accepted')] },
        op,
        [],
      ),
    ).toBeUndefined();
    expect(ourCancelIn({ events: [request({ cancelReason: 'Other' }), result('Accepted')] }, op, [])).toBeUndefined();
    expect(ourCancelIn({ events: [request({ cancelReason: 'Functional' }), result('Accepted')] }, op, [])).toBe(
      'accepted',
    );
    expect(
      ourCancelIn(
        { events: [request({ cancelReason: 'Other' }), result('Accepted')] },
        cancelRow({ cancelReason: undefined }),
        [],
      ),
    ).toBe('accepted');
    expect(
      ourCancelIn({ events: [request({ cancelAmount: { currency: 'EUR' } }), result('Accepted')] }, op, []),
    ).toBeUndefined();
  });

  it('our other done cancels of the same amount, not found by their time, explain the undated requests first, in order', () => {
    const earlier = cancelRow({
      clientTransactionId: 'c-1',
      clientDateTime: '2026-03-01T10:00:00.000Z',
      state: 'approved',
    });
    const twoUndated = { events: [request(), result('Accepted'), request(), result('Refused')] };
    expect(ourCancelIn(twoUndated, op, [earlier])).toBe('refused');
    expect(ourCancelIn(twoUndated, op, [])).toBe('accepted');
    expect(
      ourCancelIn(twoUndated, op, [
        earlier,
        cancelRow({ clientTransactionId: 'c-0', clientDateTime: '2026-03-01T09:00:00.000Z', state: 'approved' }),
      ]),
    ).toBeUndefined();
    // Another amount explains nothing; one found by its own time is accounted for already.
    expect(
      ourCancelIn(twoUndated, op, [
        cancelRow({ clientTransactionId: 'c-1', amount: 300, clientDateTime: '2026-03-01T10:00:00.000Z' }),
      ]),
    ).toBe('accepted');
    const dated = {
      events: [request({ clientDateTime: '2026-03-01T10:00:00Z' }), result('Accepted'), request(), result('Refused')],
    };
    expect(ourCancelIn(dated, op, [earlier])).toBe('refused');
    // A dated request of another amount at an earlier cancel's time is not that cancel.
    const otherAmount = {
      events: [
        request({ clientDateTime: '2026-03-01T10:00:00Z', cancelAmount: { amount: 400 } }),
        result('Accepted'),
        ...twoUndated.events,
      ],
    };
    expect(ourCancelIn(otherAmount, op, [earlier])).toBe('refused');
  });
});

describe('our other cancels the journal holds as done', () => {
  it("the sale's approved cancels other than this one: not its refunds, nor cancels still in flight or declined", () => {
    const tmp = tempDir('cancel-history-');
    const journal = new Journal({ dataDir: join(tmp.dir, 'data') });
    try {
      const add = (
        clientTransactionId: string,
        kind: 'sale' | 'cancel' | 'refund',
        state: JournalRow['state'],
        related?: string,
      ) => {
        journal.insert({
          clientTransactionId,
          kind,
          amount: 500,
          currency: 'EUR',
          state: 'in_flight',
          clientDateTime: '2026-03-01T10:05:00.000Z',
          method: 'walletA',
          ...(related ? { relatedClientTransactionId: related } : {}),
        });
        if (state !== 'in_flight') journal.update(clientTransactionId, { state });
        return journal.require(clientTransactionId);
      };
      add('s-1', 'sale', 'approved');
      add('c-1', 'cancel', 'approved', 's-1');
      const op = add('c-2', 'cancel', 'approved', 's-1');
      add('c-3', 'cancel', 'in_flight', 's-1');
      add('c-4', 'cancel', 'declined', 's-1');
      add('r-1', 'refund', 'approved', 's-1');
      add('s-2', 'sale', 'approved');
      add('c-9', 'cancel', 'approved', 's-2');
      expect(otherDoneCancels({ journal }, op).map((r) => r.clientTransactionId)).toEqual(['c-1']);
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});
