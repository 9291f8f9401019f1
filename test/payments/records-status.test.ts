import { describe, expect, it } from 'vitest';
import {
  classifyStatus,
  isCapturedStatus,
  recordEvents,
  recordServerId,
  recordStatus,
  resultMessage,
  saleStateFor,
} from '../../src/payments/records.js';

// What a platform record's status means for the sale (docs/platform-contract.md, "Tolerance of
// answers", and "Decisions where the spec is silent", status values and card sale statuses).
describe('every status the platform may write, in any casing', () => {
  it('still going: initialized, pending, processing, in progress; the sale keeps waiting', () => {
    for (const s of ['Initialized', 'PENDING', 'processing', 'InProgress']) {
      expect(classifyStatus(s), s).toBe('pending');
      expect(saleStateFor(s), s).toBeUndefined();
    }
  });

  it('charged: accepted, captured, authorized, approved, paid, success, succeeded; the sale is approved', () => {
    for (const s of ['Accepted', 'CAPTURED', 'authorized', 'Approved', 'paid', 'Success', 'succeeded']) {
      expect(classifyStatus(s), s).toBe('charged');
      expect(saleStateFor(s), s).toBe('approved');
    }
  });

  it('refused: refused, declined, rejected; the sale is declined', () => {
    for (const s of ['Refused', 'DECLINED', 'rejected']) {
      expect(classifyStatus(s), s).toBe('refused');
      expect(saleStateFor(s), s).toBe('declined');
    }
  });

  it('cancelled in either spelling, reversed or voided; the sale is cancelled', () => {
    for (const s of ['cancelled', 'Canceled', 'REVERSED', 'voided']) {
      expect(classifyStatus(s), s).toBe('cancelled');
      expect(saleStateFor(s), s).toBe('cancelled');
    }
  });

  it('failed, error and expired: the sale failed', () => {
    expect(classifyStatus('Failed')).toBe('failed');
    expect(classifyStatus(' ERROR ')).toBe('failed');
    expect(classifyStatus('Expired')).toBe('expired');
    for (const s of ['failed', 'error', 'expired']) expect(saleStateFor(s), s).toBe('failed');
  });

  it('anything else, or no status, is shown as it came and needs attention', () => {
    for (const s of ['Settled', 'fail', '', undefined]) {
      expect(classifyStatus(s), String(s)).toBe('other');
      expect(saleStateFor(s), String(s)).toBe('needs_attention');
    }
  });

  it('captured only when the status says Captured, in any casing', () => {
    expect(isCapturedStatus('Captured')).toBe(true);
    expect(isCapturedStatus(' CAPTURED ')).toBe(true);
    expect(isCapturedStatus('Accepted')).toBe(false);
    expect(isCapturedStatus(undefined)).toBe(false);
  });
});

describe('reading a record', () => {
  it('status and server id as sent when they are non-empty strings', () => {
    expect(recordStatus({ transactionStatus: 'Accepted ' })).toBe('Accepted ');
    expect(recordStatus({ transactionStatus: 3 })).toBeUndefined();
    expect(recordStatus({})).toBeUndefined();
    expect(recordServerId({ serverTransactionId: 'srv-1' })).toBe('srv-1');
    expect(recordServerId({ serverTransactionId: '  ' })).toBeUndefined();
    expect(recordServerId({ serverTransactionId: 7 })).toBeUndefined();
  });

  it('events are the objects in its list; anything else is passed over', () => {
    expect(recordEvents({ events: [{ a: 1 }, null, 'x', 3, { b: 2 }] })).toEqual([{ a: 1 }, { b: 2 }]);
    expect(recordEvents({ events: { a: 1 } })).toEqual([]);
    expect(recordEvents({})).toEqual([]);
  });

  it('the result message is the last non-empty one', () => {
    expect(
      resultMessage({
        events: [
          { resultMessage: 'first' },
          { resultMessage: 'insufficient funds' },
          { resultMessage: '' },
          { resultMessage: 5 },
          {},
        ],
      }),
    ).toBe('insufficient funds');
    expect(resultMessage({ events: [{ resultMessage: 'the only one' }, { eventType: 'x' }] })).toBe('the only one');
    expect(resultMessage({ events: [{ resultMessage: '' }] })).toBeUndefined();
    expect(resultMessage({})).toBeUndefined();
  });
});
