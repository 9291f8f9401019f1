import { describe, expect, it } from 'vitest';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import {
  answeredUnreadable,
  failureKind,
  isApprovalCodeRefusal,
  isNotFoundError,
  isUnknownIdAnswer,
  platformReason,
  refusalError,
} from '../../src/payments/outcome.js';
import { PlatformError, type PlatformErrorInit } from '../../src/platform/errors.js';

// What a failed platform write means for the money, and the refusal a person reads
// (docs/payments.md, "Unknown outcome: resolution and reversal"; docs/platform-contract.md,
// "Decisions where the spec is silent", approval code).
const platform = (
  init: Partial<PlatformErrorInit> & Pick<PlatformErrorInit, 'category'>,
  message = 'platform call failed',
): PlatformError =>
  new PlatformError(message, { operation: 'process', method: 'POST', outcomeUnknown: false, ...init });

describe('what a failed write means', () => {
  it('never sent: a connection that never carried the request, or our own request check', () => {
    expect(failureKind(platform({ category: 'network' }))).toBe('not_sent');
    expect(failureKind(new AgentError(ErrorCodes.PLATFORM_BAD_REQUEST, 'amount missing'))).toBe('not_sent');
  });

  it('refused: the platform answered 401/403 or another 4xx and did nothing', () => {
    expect(failureKind(platform({ category: 'auth', status: 401 }))).toBe('refused');
    expect(failureKind(platform({ category: 'rejected', status: 422 }))).toBe('refused');
  });

  it('unknown: a connection broken after sending, a timeout, a 5xx, or any other throw', () => {
    expect(failureKind(platform({ category: 'network', outcomeUnknown: true }))).toBe('unknown');
    expect(failureKind(platform({ category: 'timeout', outcomeUnknown: true }))).toBe('unknown');
    expect(failureKind(platform({ category: 'server', status: 503, outcomeUnknown: true }))).toBe('unknown');
    expect(failureKind(new AgentError(ErrorCodes.PAYMENT_RULE, 'a bug'))).toBe('unknown');
    expect(failureKind(new Error('unexpected'))).toBe('unknown');
    expect(failureKind('thrown text')).toBe('unknown');
  });

  it('a 2xx answer that cannot be read is unknown, never refused or unsent, whatever category it came with', () => {
    const unreadable = (category: PlatformErrorInit['category'], status: number) =>
      platform({ category, status, code: ErrorCodes.PLATFORM_BAD_RESPONSE });
    expect(failureKind(unreadable('rejected', 200))).toBe('unknown');
    expect(failureKind(unreadable('network', 299))).toBe('unknown');
    expect(failureKind(unreadable('server', 201))).toBe('unknown');
  });

  it('an unreadable answer is "answered" only with a 2xx status', () => {
    const bad = (status: number | undefined) =>
      platform({ category: 'server', status, code: ErrorCodes.PLATFORM_BAD_RESPONSE });
    expect(answeredUnreadable(bad(200))).toBe(true);
    expect(answeredUnreadable(bad(299))).toBe(true);
    expect(answeredUnreadable(bad(199))).toBe(false);
    expect(answeredUnreadable(bad(300))).toBe(false);
    expect(answeredUnreadable(bad(undefined))).toBe(false);
    expect(answeredUnreadable(platform({ category: 'server', status: 200 }))).toBe(false);
    expect(answeredUnreadable(new AgentError(ErrorCodes.PLATFORM_BAD_RESPONSE, 'not from the platform'))).toBe(false);
  });

  it('not found is a 404 of the platform', () => {
    expect(isNotFoundError(platform({ category: 'rejected', status: 404 }))).toBe(true);
    expect(isNotFoundError(platform({ category: 'rejected', status: 400 }))).toBe(false);
    expect(isNotFoundError(Object.assign(new Error('x'), { status: 404 }))).toBe(false);
  });

  it("a lookup's unknown id is a 404, or the 400 or 422 some platforms answer for it; a write's 400 or 422 stays a refusal", () => {
    for (const status of [404, 400, 422])
      expect(isUnknownIdAnswer(platform({ category: 'rejected', status, operation: 'status', method: 'GET' }))).toBe(
        true,
      );
    for (const status of [401, 403, 409, 429, 500, 503])
      expect(isUnknownIdAnswer(platform({ category: 'rejected', status, operation: 'status', method: 'GET' }))).toBe(
        false,
      );
    expect(isUnknownIdAnswer(Object.assign(new Error('x'), { status: 400 }))).toBe(false);
    expect(isNotFoundError(platform({ category: 'rejected', status: 422, operation: 'cancel' }))).toBe(false);
    expect(failureKind(platform({ category: 'rejected', status: 400, operation: 'cancel' }))).toBe('refused');
  });
});

describe('a refusal asking for a supervisor approval code', () => {
  it('is a 4xx refusal naming the approval code in its code or message, in any spelling', () => {
    expect(isApprovalCodeRefusal(platform({ category: 'rejected', errorCode: 'APPROVAL_CODE_REQUIRED' }))).toBe(true);
    expect(isApprovalCodeRefusal(platform({ category: 'rejected', errorMessage: 'Approval code missing' }))).toBe(true);
    expect(isApprovalCodeRefusal(platform({ category: 'rejected', errorMessage: 'approvalcode required' }))).toBe(true);
    expect(
      isApprovalCodeRefusal(platform({ category: 'rejected', errorCode: 'MISSING', errorMessage: 'approval-code' })),
    ).toBe(true);
  });

  it('is not one when the refusal is about something else, not a 4xx refusal, or not from the platform', () => {
    expect(
      isApprovalCodeRefusal(platform({ category: 'rejected', errorCode: 'AMOUNT', errorMessage: 'amount too high' })),
    ).toBe(false);
    expect(isApprovalCodeRefusal(platform({ category: 'rejected' }))).toBe(false);
    expect(isApprovalCodeRefusal(platform({ category: 'auth', errorMessage: 'approval code required' }))).toBe(false);
    expect(isApprovalCodeRefusal(platform({ category: 'server', errorMessage: 'approval code required' }))).toBe(false);
    expect(isApprovalCodeRefusal(new Error('approval code required'))).toBe(false);
  });
});

describe('the refusal staff read', () => {
  it('an approval code required: said so, flagged for the page, with the operation and our id', () => {
    const err = platform({ category: 'rejected', errorMessage: 'approval code required' });
    const refusal = refusalError(err, 'cancel', 'ctid-1');
    expect(refusal.code).toBe(ErrorCodes.PAYMENT_RULE);
    expect(refusal.message).toBe('the cancel was refused: a supervisor approval code is required for this merchant');
    expect(refusal.details).toEqual({
      approvalCodeRequired: true,
      reasonCode: 'APPROVAL_CODE_REQUIRED',
      clientTransactionId: 'ctid-1',
    });
    expect(refusal.cause).toBe(err);
  });

  it('an approval code given but wrong: said to be not correct, whatever word the platform uses', () => {
    for (const said of [
      { errorCode: 'INVALID_APPROVAL_CODE' },
      { errorMessage: 'approval code incorrect' },
      { errorMessage: 'approval code is not correct' },
      { errorMessage: 'wrong approval code' },
    ]) {
      const refusal = refusalError(platform({ category: 'rejected', ...said }), 'refund', 'ctid-2');
      expect(refusal.message, JSON.stringify(said)).toBe(
        'the refund was refused: the supervisor approval code is not correct',
      );
      expect(refusal.details).toEqual({
        approvalCodeRequired: true,
        reasonCode: 'APPROVAL_CODE_INCORRECT',
        clientTransactionId: 'ctid-2',
      });
    }
  });

  it("credentials refused: nothing was done, in the platform's own words", () => {
    const err = platform(
      { category: 'auth', status: 403, errorMessage: 'terminal not enrolled' },
      'HTTP 403 from process',
    );
    const refusal = refusalError(err, 'sale', 'ctid-3');
    expect(refusal.code).toBe(ErrorCodes.PLATFORM_AUTH);
    expect(refusal.message).toBe(
      "the platform did not accept the terminal's credentials for the sale: nothing was done (terminal not enrolled)",
    );
    expect(refusal.details).toEqual({ clientTransactionId: 'ctid-3' });
    expect(refusal.cause).toBe(err);
  });

  it("any other refusal: the platform's words and code, and refund suggested when the platform says so", () => {
    const captured = refusalError(
      platform({ category: 'rejected', errorCode: 'CAPTURED', errorMessage: 'Transaction captured, refund instead' }),
      'cancel',
      'ctid-4',
    );
    expect(captured.code).toBe(ErrorCodes.PAYMENT_RULE);
    expect(captured.message).toBe('the platform refused the cancel: Transaction captured, refund instead');
    expect(captured.details).toEqual({ clientTransactionId: 'ctid-4', suggest: 'refund', platformCode: 'CAPTURED' });
    expect(
      refusalError(platform({ category: 'rejected', errorMessage: 'settled: Refund it' }), 'cancel', 'c').details,
    ).toEqual({ clientTransactionId: 'c', suggest: 'refund' });
    expect(
      refusalError(platform({ category: 'rejected', errorMessage: 'amount too high' }), 'cancel', 'c').details,
    ).toStrictEqual({ clientTransactionId: 'c' });
    expect(
      refusalError(platform({ category: 'rejected', errorCode: 'LIMIT' }, 'HTTP 422'), 'refund', 'c').details,
    ).toStrictEqual({ clientTransactionId: 'c', platformCode: 'LIMIT' });
    const err = new Error('socket hang up');
    const other = refusalError(err, 'capture', 'ctid-5');
    expect(other.message).toBe('the platform refused the capture: socket hang up');
    expect(other.details).toEqual({ clientTransactionId: 'ctid-5' });
    expect(other.cause).toBe(err);
  });

  it("the platform's words are its message, or the error's own when it sent none", () => {
    expect(platformReason(platform({ category: 'rejected', errorMessage: 'limit exceeded' }, 'HTTP 422'))).toBe(
      'limit exceeded',
    );
    expect(platformReason(platform({ category: 'rejected' }, 'HTTP 422 from process'))).toBe('HTTP 422 from process');
    expect(platformReason('text thrown')).toBe('text thrown');
  });
});
