import { describe, expect, it } from 'vitest';
import { operationVerdict } from '../../src/payments/operation-result.js';

/**
 * When a refund or cancel record is final (docs/platform-contract.md, "Decisions where the
 * spec is silent", refund or cancel answered pending or `Accepted`): the result event's
 * `result` decides; the status word alone never says it succeeded.
 */
const refundRequest = {
  eventType: 'walletARefundRequest',
  refundAmount: { amount: 500, currency: 'EUR' },
  result: null,
  resultMessage: null,
};
const refundResult = (result: unknown, resultMessage: unknown = null) => ({
  eventType: 'walletARefundResult',
  result,
  resultMessage,
  refundAmount: { value: '500', currency: 'EUR' },
});
const cancelRequest = { eventType: 'cancelRequest', cancelAmount: { amount: 500, currency: 'EUR' }, result: null };
const cancelResult = (result: unknown) => ({ eventType: 'walletBCancelResult', result, resultMessage: 'text' });
/** The strict platform's event of a type no agent knows, with a result of its own. */
const unknownEvent = { eventType: 'platformRiskAssessment', result: 'Passed', riskScore: 12 };

describe('a refund record', () => {
  it('answered Accepted with its request only is pending; its result event decides', () => {
    expect(
      operationVerdict('refund', { transactionStatus: 'Accepted', events: [refundRequest, unknownEvent] }),
    ).toEqual({ outcome: 'pending' });
    expect(
      operationVerdict('refund', {
        transactionStatus: 'Accepted',
        events: [refundRequest, unknownEvent, refundResult('Accepted', 'Refund accepted')],
      }),
    ).toEqual({
      outcome: 'done',
      result: 'Accepted',
      resultMessage: 'Refund accepted',
    });
    expect(
      operationVerdict('refund', {
        transactionStatus: 'Accepted',
        events: [refundRequest, refundResult('Failed', 'wallet down')],
      }),
    ).toEqual({
      outcome: 'failed',
      result: 'Failed',
      resultMessage: 'wallet down',
    });
    expect(
      operationVerdict('refund', { transactionStatus: 'Accepted', events: [refundRequest, refundResult('REFUSED')] })
        .outcome,
    ).toBe('declined');
  });

  it('a result it does not know, or a null or empty one, is not final; the word is kept to show', () => {
    expect(
      operationVerdict('refund', {
        transactionStatus: 'Accepted',
        events: [refundRequest, refundResult('UnderReview')],
      }),
    ).toEqual({ outcome: 'pending', result: 'UnderReview' });
    expect(
      operationVerdict('refund', { transactionStatus: 'Accepted', events: [refundRequest, refundResult(null)] }),
    ).toEqual({ outcome: 'pending' });
    expect(
      operationVerdict('refund', { transactionStatus: 'Accepted', events: [refundRequest, refundResult('  ')] }),
    ).toEqual({ outcome: 'pending' });
    expect(
      operationVerdict('refund', { transactionStatus: 'Accepted', events: [refundRequest, refundResult(7)] }),
    ).toEqual({ outcome: 'pending' });
  });

  it('without a result event: a status saying it did not happen is final; Accepted, absent or unknown is not', () => {
    expect(operationVerdict('refund', { transactionStatus: 'Failed', events: [refundRequest] }).outcome).toBe('failed');
    expect(operationVerdict('refund', { transactionStatus: 'refused' }).outcome).toBe('declined');
    expect(operationVerdict('refund', { transactionStatus: 'cancelled' }).outcome).toBe('failed');
    expect(operationVerdict('refund', { transactionStatus: 'Accepted' }).outcome).toBe('pending');
    expect(operationVerdict('refund', { transactionStatus: null, events: null }).outcome).toBe('pending');
    expect(operationVerdict('refund', {}).outcome).toBe('pending');
  });

  it("a cancel's result event says nothing of a refund", () => {
    expect(
      operationVerdict('refund', { transactionStatus: 'Accepted', events: [refundRequest, cancelResult('Accepted')] })
        .outcome,
    ).toBe('pending');
  });
});

describe('a cancel record', () => {
  it('answered cancelled with its request only is pending; its result event decides, whatever the status word', () => {
    expect(
      operationVerdict('cancel', { transactionStatus: 'cancelled', events: [cancelRequest, unknownEvent] }).outcome,
    ).toBe('pending');
    expect(
      operationVerdict('cancel', {
        transactionStatus: 'Initialized',
        events: [cancelRequest, cancelResult('Accepted')],
      }).outcome,
    ).toBe('done');
    expect(
      operationVerdict('cancel', { transactionStatus: 'cancelled', events: [cancelRequest, cancelResult('Failed')] })
        .outcome,
    ).toBe('failed');
  });

  it('with no event of the cancel at all, the status decides: cancelled is done, Accepted is not', () => {
    expect(operationVerdict('cancel', { transactionStatus: 'cancelled', events: [] }).outcome).toBe('done');
    expect(operationVerdict('cancel', { transactionStatus: 'Cancelled' }).outcome).toBe('done');
    expect(operationVerdict('cancel', { transactionStatus: 'Accepted' }).outcome).toBe('pending');
    expect(operationVerdict('cancel', { transactionStatus: 'Expired' }).outcome).toBe('failed');
  });
});
