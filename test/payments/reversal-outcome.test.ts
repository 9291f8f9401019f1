import { describe, expect, it } from 'vitest';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import {
  afterRefusedCancel,
  afterReversalRefund,
  cancelAnswered,
  cancelFailed,
  earlierCancelLanded,
  landedLate,
  openReversalCancel,
  openReversalRefund,
  outcomeNeverRecorded,
  pendingReversalOperation,
  recoveryStep,
  refundedInFull,
  refundFailed,
  reversalCancelAmount,
  reversalRefundAmount,
} from '../../src/payments/reversal-outcome.js';
import { PlatformError, type PlatformErrorInit } from '../../src/platform/errors.js';
import { saleRow } from './sale-row.js';

// What each answer of a reversal means for the sale after an unknown outcome
// (docs/payments.md, "Unknown outcome: resolution and reversal"; docs/platform-contract.md,
// "Decisions where the spec is silent", reversal). No platform: answers and rows written here;
// the flows that send them are in unknown-outcome.test.ts and recovery.test.ts.
const platform = (init: Partial<PlatformErrorInit> & Pick<PlatformErrorInit, 'category'>): PlatformError =>
  new PlatformError('platform call failed', { operation: 'cancel', method: 'POST', outcomeUnknown: false, ...init });
const notFound = () => platform({ category: 'rejected', status: 404 });
const op = (over: Partial<JournalRow>): JournalRow =>
  saleRow({
    clientTransactionId: 'op-1',
    relatedClientTransactionId: 's-1',
    kind: 'cancel',
    state: 'in_flight',
    ...over,
  });
const reversalCancel = (over: Partial<JournalRow> = {}) => op({ cancelReason: 'Technical', ...over });
const reversing = (over: Partial<JournalRow> = {}) =>
  saleRow({ method: 'card', state: 'reversing', platformStatus: undefined, serverTransactionId: undefined, ...over });

describe('how much a reversal asks back', () => {
  it('its cancel: what is left of the sale after the cancels and refunds already done', () => {
    expect(reversalCancelAmount(reversing({ amount: 1_000 }))).toBe(1_000);
    expect(reversalCancelAmount(reversing({ amount: 1_000, cancelledAmount: 300, refundedAmount: 200 }))).toBe(500);
  });

  it("its refund: what was captured less what was refunded, the sale's amount when no capture is known", () => {
    expect(reversalRefundAmount(reversing({ amount: 1_000 }))).toBe(1_000);
    expect(reversalRefundAmount(reversing({ amount: 1_000, capturedAmount: 800, refundedAmount: 300 }))).toBe(500);
    expect(reversalRefundAmount(reversing({ amount: 1_000, refundedAmount: 300 }))).toBe(700);
  });

  it('nothing more once the refunds (with the cancels) gave back everything captured, or the whole sale when nothing was captured', () => {
    expect(refundedInFull(reversing({ amount: 1_000, refundedAmount: 1_000 }))).toBe(true);
    expect(refundedInFull(reversing({ amount: 1_000, refundedAmount: 600, cancelledAmount: 400 }))).toBe(true);
    expect(refundedInFull(reversing({ amount: 1_000, capturedAmount: 800, refundedAmount: 800 }))).toBe(true);
    expect(refundedInFull(reversing({ amount: 1_000, capturedAmount: 800, refundedAmount: 700 }))).toBe(false);
    expect(refundedInFull(reversing({ amount: 1_000, refundedAmount: 999 }))).toBe(false);
  });

  it('a cancel alone, however large, is not a refund: the reversal still goes on', () => {
    expect(refundedInFull(reversing({ amount: 1_000, cancelledAmount: 1_000 }))).toBe(false);
    expect(refundedInFull(reversing({ amount: 0 }))).toBe(false);
  });
});

describe("the reversal's own operations among the sale's", () => {
  it("the cancel every attempt reuses: the Technical cancel still in flight, never a clerk's cancel or one that ended", () => {
    const clerks = op({ clientTransactionId: 'op-clerk', cancelReason: 'Functional' });
    const ended = reversalCancel({ clientTransactionId: 'op-ended', state: 'failed' });
    const open = reversalCancel({ clientTransactionId: 'op-open' });
    expect(openReversalCancel([clerks, ended, open])?.clientTransactionId).toBe('op-open');
    expect(openReversalCancel([clerks, ended])).toBeUndefined();
    expect(openReversalCancel([op({ kind: 'refund', cancelReason: 'Technical' })])).toBeUndefined();
  });

  it('the refund to retry: a refund still in flight, never one that ended or a cancel', () => {
    const done = op({ clientTransactionId: 'op-done', kind: 'refund', state: 'approved' });
    const open = op({ clientTransactionId: 'op-open', kind: 'refund' });
    expect(openReversalRefund([reversalCancel(), done, open])?.clientTransactionId).toBe('op-open');
    expect(openReversalRefund([reversalCancel(), done])).toBeUndefined();
  });

  it("the one to follow: its cancel or a refund the platform answered pending, never a clerk's pending cancel", () => {
    expect(pendingReversalOperation([reversalCancel({ state: 'pending' })])?.kind).toBe('cancel');
    expect(pendingReversalOperation([op({ kind: 'refund', state: 'pending' })])?.kind).toBe('refund');
    expect(pendingReversalOperation([op({ cancelReason: 'Functional', state: 'pending' })])).toBeUndefined();
    expect(pendingReversalOperation([reversalCancel(), op({ kind: 'refund', state: 'approved' })])).toBeUndefined();
  });
});

describe("the answer of the reversal's cancel", () => {
  it("approved: reversed; pending: followed; anything else: settled from the sale's status", () => {
    expect(cancelAnswered(reversalCancel({ state: 'approved' }))).toBe('reversed');
    expect(cancelAnswered(reversalCancel({ state: 'pending' }))).toBe('pending');
    for (const state of ['declined', 'failed', 'needs_attention'] as const)
      expect(cancelAnswered(reversalCancel({ state })), state).toBe('refused');
  });

  it('"not found" while the sale\'s own request may still land (within the lookup grace since it became reversing): tried again', () => {
    const since = Date.parse('2026-03-01T10:00:00.000Z');
    expect(cancelFailed(notFound(), '2026-03-01T10:00:00.000Z', since + 4_999, 5_000)).toBe('retry');
    expect(cancelFailed(notFound(), '2026-03-01T10:00:00.000Z', since + 5_000, 5_000)).toBe('not_found');
    expect(cancelFailed(notFound(), '2026-03-01T10:00:00.000Z', since + 60_000, 5_000)).toBe('not_found');
  });

  it('"not found" for a sale whose last update cannot be read: nothing to reverse (no grace to wait for)', () => {
    expect(cancelFailed(notFound(), 'not a time', 0, 5_000)).toBe('not_found');
  });

  it('never sent or no answer: tried again; refused: settled, by a person with the code when the platform asks for one', () => {
    const at = '2026-03-01T10:00:00.000Z';
    expect(cancelFailed(platform({ category: 'network' }), at, 0, 0)).toBe('retry');
    expect(cancelFailed(platform({ category: 'server', status: 503, outcomeUnknown: true }), at, 0, 0)).toBe('retry');
    expect(
      cancelFailed(platform({ category: 'rejected', status: 422, errorMessage: 'approval code required' }), at, 0, 0),
    ).toBe('approval_code');
    expect(
      cancelFailed(platform({ category: 'rejected', status: 422, errorMessage: 'already captured' }), at, 0, 0),
    ).toBe('refused');
    expect(cancelFailed(platform({ category: 'auth', status: 403 }), at, 0, 0)).toBe('refused');
  });

  it("an earlier attempt landed when our cancel is accepted in the sale's history or the sale is cancelled; still completing when ours has no result yet", () => {
    expect(earlierCancelLanded('accepted', 'Accepted')).toBe(true);
    expect(earlierCancelLanded(undefined, 'Cancelled')).toBe(true);
    expect(earlierCancelLanded('unknown', 'cancelled')).toBe(true);
    expect(earlierCancelLanded('unknown', 'Accepted')).toBe('pending');
    expect(earlierCancelLanded('refused', 'Accepted')).toBe(false);
    expect(earlierCancelLanded(undefined, undefined)).toBe(false);
  });
});

describe("a reversal the platform refused, settled from the sale's record", () => {
  it('nothing charged: reversed, declined or failed as the platform says, telling the clerk nothing is charged', () => {
    expect(afterRefusedCancel({ transactionStatus: 'Cancelled' }, 'EUR', 'no')).toStrictEqual({
      kind: 'settled',
      settlement: { state: 'reversed', message: 'reversed: nothing is charged' },
    });
    expect(afterRefusedCancel({ transactionStatus: 'Declined' }, 'EUR', 'no')).toStrictEqual({
      kind: 'settled',
      settlement: { state: 'declined', message: 'declined by the platform: nothing is charged' },
    });
    expect(afterRefusedCancel({ transactionStatus: 'Failed' }, 'EUR', 'no')).toStrictEqual({
      kind: 'settled',
      settlement: { state: 'failed', message: 'the platform reports Failed: nothing is charged' },
    });
    expect(afterRefusedCancel({ transactionStatus: 'Expired' }, 'EUR', 'no')).toStrictEqual({
      kind: 'settled',
      settlement: { state: 'failed', message: 'the platform reports Expired: nothing is charged' },
    });
  });

  it('captured (the status, or a capture event with an amount on an Accepted sale): refunded instead', () => {
    expect(afterRefusedCancel({ transactionStatus: 'Captured' }, 'EUR', 'no')).toStrictEqual({ kind: 'refund' });
    const capturedByEvent = {
      transactionStatus: 'Accepted',
      events: [
        { eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { value: '10.00', currency: 'EUR' } },
      ],
    };
    expect(afterRefusedCancel(capturedByEvent, 'EUR', 'no')).toStrictEqual({ kind: 'refund' });
  });

  it('charged but not captured, a capture of nothing, or a status it cannot place: a person checks it, reading why and what the platform reports', () => {
    const attention = (status: string) => ({
      kind: 'attention',
      settlement: {
        state: 'needs_attention',
        message: `the sale could not be reversed (cancel window over); the platform reports "${status}": check it and refund if charged`,
      },
    });
    expect(afterRefusedCancel({ transactionStatus: 'Accepted' }, 'EUR', 'cancel window over')).toStrictEqual(
      attention('Accepted'),
    );
    const zeroCapture = {
      transactionStatus: 'Accepted',
      events: [{ eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { amount: 0, currency: 'EUR' } }],
    };
    expect(afterRefusedCancel(zeroCapture, 'EUR', 'cancel window over')).toStrictEqual(attention('Accepted'));
    expect(
      afterRefusedCancel({ transactionStatus: 'Settled', events: zeroCapture.events }, 'EUR', 'cancel window over'),
    ).toStrictEqual(attention('Settled'));
    expect(afterRefusedCancel({ transactionStatus: 'Pending' }, 'EUR', 'cancel window over')).toStrictEqual(
      attention('Pending'),
    );
    expect(afterRefusedCancel({}, 'EUR', 'cancel window over')).toStrictEqual(attention(''));
  });

  it('a capture event on a sale the platform does not report charged (still going, or a status it cannot place) is no reason to refund: a person checks it', () => {
    const capture = [
      { eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { amount: 1_000, currency: 'EUR' } },
    ];
    expect(afterRefusedCancel({ transactionStatus: 'Pending', events: capture }, 'EUR', 'no').kind).toBe('attention');
    expect(afterRefusedCancel({ transactionStatus: 'Settled', events: capture }, 'EUR', 'no').kind).toBe('attention');
    expect(afterRefusedCancel({ transactionStatus: 'Accepted', events: capture }, 'EUR', 'no').kind).toBe('refund');
  });

  it("a capture event is read in the sale's currency when it names none", () => {
    const record = {
      transactionStatus: 'Accepted',
      events: [{ eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { value: '10.00' } }],
    };
    expect(afterRefusedCancel(record, 'EUR', 'no').kind).toBe('refund');
  });
});

describe("the reversal's refund", () => {
  it('failed: looked up when it may have happened, tried again when never sent, set aside when refused', () => {
    expect(refundFailed(platform({ category: 'timeout', outcomeUnknown: true }))).toBe('resolve');
    expect(refundFailed(new Error('unexpected'))).toBe('resolve');
    expect(refundFailed(platform({ category: 'network' }))).toBe('retry');
    expect(refundFailed(new AgentError(ErrorCodes.PLATFORM_BAD_REQUEST, 'amount missing'))).toBe('retry');
    expect(refundFailed(platform({ category: 'rejected', status: 422 }))).toBe('refused');
  });

  it('approved: the sale is reversed, nothing is charged', () => {
    expect(afterReversalRefund(op({ kind: 'refund', state: 'approved' }), 'done')).toStrictEqual({
      state: 'reversed',
      message: 'reversed by a refund (the sale was captured): nothing is charged',
    });
  });

  it('pending, its answer still waiting for the journal, or found not to have happened: tried again', () => {
    expect(afterReversalRefund(op({ kind: 'refund', state: 'pending' }), 'done')).toBeUndefined();
    expect(afterReversalRefund(op({ kind: 'refund', state: 'in_flight' }), 'done')).toBeUndefined();
    expect(afterReversalRefund(op({ kind: 'refund', state: 'failed' }), 'not_happened')).toBeUndefined();
  });

  it('ended otherwise: a person checks the sale, reading how the refund ended', () => {
    expect(
      afterReversalRefund(op({ kind: 'refund', state: 'declined', message: 'limit exceeded' }), 'done'),
    ).toStrictEqual({
      state: 'needs_attention',
      message: 'the reversal refund ended declined: limit exceeded; check the sale',
    });
    expect(afterReversalRefund(op({ kind: 'refund', state: 'failed' }), 'unknown')).toStrictEqual({
      state: 'needs_attention',
      message: 'the reversal refund ended failed: ; check the sale',
    });
  });
});

describe('start-up recovery', () => {
  it("a sale set aside with its outcome never recorded is looked up again; one with a status, offline, or whose reversal was tried is a person's to decide", () => {
    const setAside = saleRow({ state: 'needs_attention', platformStatus: undefined });
    expect(outcomeNeverRecorded(setAside, () => [])).toBe(true);
    expect(outcomeNeverRecorded(setAside, () => [op({ cancelReason: 'Functional', state: 'approved' })])).toBe(true);
    expect(outcomeNeverRecorded(setAside, () => [reversalCancel({ state: 'failed' })])).toBe(false);
    expect(outcomeNeverRecorded(setAside, () => [op({ kind: 'refund', state: 'failed' })])).toBe(false);
    expect(outcomeNeverRecorded({ ...setAside, platformStatus: 'Settled' }, () => [])).toBe(false);
    expect(outcomeNeverRecorded({ ...setAside, offline: true }, () => [])).toBe(false);
    expect(outcomeNeverRecorded({ ...setAside, state: 'failed' }, () => [])).toBe(false);
    expect(outcomeNeverRecorded({ ...setAside, kind: 'refund' }, () => [])).toBe(false);
  });

  it('what is done with each row an earlier process left', () => {
    expect(recoveryStep(reversing())).toBe('resume_reversal');
    expect(recoveryStep(op({ state: 'in_flight' }))).toBe('resolve_operation');
    expect(recoveryStep(op({ kind: 'refund', state: 'created' }))).toBe('operation_not_sent');
    expect(recoveryStep(saleRow({ state: 'in_flight' }))).toBe('resolve_sale');
    expect(recoveryStep(saleRow({ state: 'needs_attention' }))).toBe('resolve_sale');
    expect(recoveryStep(saleRow({ state: 'awaiting_customer', serverTransactionId: undefined }))).toBe('sale_not_sent');
    expect(recoveryStep(saleRow({ state: 'created', serverTransactionId: undefined }))).toBe('sale_not_sent');
    expect(recoveryStep(saleRow({ state: 'awaiting_customer', serverTransactionId: 'srv-1' }))).toBe('leave');
  });
});

describe('a sale counted as not done turns up at the platform', () => {
  it('reversed when it may charge (charged, still going, or a status it cannot place); left when the platform says nothing was charged', () => {
    for (const s of ['Accepted', 'Captured', 'Pending', 'Settled'])
      expect(landedLate({ transactionStatus: s }), s).toBe(true);
    expect(landedLate({})).toBe(true);
    for (const s of ['Refused', 'Failed', 'Expired', 'Cancelled'])
      expect(landedLate({ transactionStatus: s }), s).toBe(false);
  });
});
