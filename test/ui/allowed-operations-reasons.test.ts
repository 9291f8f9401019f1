import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_REASON_CODES, type OperationReasonCode } from '../../src/payments/index.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import {
  localAllowed,
  mergeAllowed,
  refundCheck,
  requireAmount,
  type OpenOperations,
} from '../../src/payments/rules.js';
import { refusalError } from '../../src/payments/outcome.js';
import { PlatformError } from '../../src/platform/index.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { DAY, HOUR, SOLD_AT, saleRow } from '../payments/sale-row.js';

/**
 * Each reason an operation is not allowed reaches the caller as a stable `reasonCode` beside
 * the English `reason` (docs/local-api.md, "Allowed operations"): the view the real rules
 * (src/payments/rules.ts) make of a journal row, answered by the real local API route and
 * checked against the OpenAPI document (test/helpers/http-client.ts). Each code once.
 */
type Op = 'cancel' | 'refund' | 'capture';

interface Case {
  code: OperationReasonCode;
  op: Op;
  row: Partial<JournalRow>;
  /** When asked (default an hour after the sale). */
  at?: number;
  open?: OpenOperations;
  /** The platform's allowed-operations record, merged as the service does. */
  platform?: Record<string, unknown>;
}

const card = { method: 'card', scenario: undefined, platformStatus: 'Authorized' } as const;

const CASES: Case[] = [
  { code: 'NOT_A_SALE', op: 'cancel', row: { kind: 'refund' } },
  { code: 'NOT_UPLOADED', op: 'refund', row: { state: 'offline_stored', serverTransactionId: undefined } },
  { code: 'NOT_APPROVED', op: 'capture', row: { ...card, state: 'declined' } },
  {
    code: 'CAPTURED_REFUND_INSTEAD',
    op: 'cancel',
    row: { ...card, capturedAmount: 1_000, platformStatus: 'Captured' },
  },
  { code: 'CANCEL_WINDOW_ENDED', op: 'cancel', row: { method: 'walletB' }, at: SOLD_AT + 2 * DAY },
  { code: 'NOTHING_LEFT_TO_CANCEL', op: 'cancel', row: {}, open: { refund: 1_000, cancel: 0, capture: 0 } },
  { code: 'NOT_CAPTURED_CANCEL_INSTEAD', op: 'refund', row: card },
  { code: 'REFUND_WINDOW_ENDED', op: 'refund', row: { method: 'walletB' }, at: SOLD_AT + 181 * DAY },
  { code: 'NOTHING_LEFT_TO_REFUND', op: 'refund', row: { refundedAmount: 1_000 } },
  { code: 'NOT_A_CARD_SALE', op: 'capture', row: {} },
  { code: 'ALREADY_CAPTURED', op: 'capture', row: { ...card, capturedAmount: 1_000, platformStatus: 'Captured' } },
  { code: 'CAPTURE_UNDER_WAY', op: 'capture', row: card, open: { refund: 0, cancel: 0, capture: 1_000 } },
  { code: 'NOTHING_LEFT_TO_CAPTURE', op: 'capture', row: card, open: { refund: 0, cancel: 1_000, capture: 0 } },
  { code: 'PLATFORM_NOT_ALLOWED', op: 'cancel', row: {}, platform: { allowed: false, maxAmount: 0, currency: 'EUR' } },
];

describe('allowed operations: a code for each reason', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the cases below cover every code, each once', () => {
    expect(CASES.map((c) => c.code).sort()).toEqual([...OPERATION_REASON_CODES].sort());
  });

  for (const c of CASES) {
    it(`${c.code}: ${c.op} not allowed, the code beside the English reason`, async () => {
      const id = `R-${c.code}`;
      const row = saleRow({ clientTransactionId: id, ...c.row });
      const local = localAllowed(row, c.at ?? SOLD_AT + HOUR, c.open);
      s.payments.view({ clientTransactionId: id, amount: row.amount });
      s.payments.allowedFor.set(id, c.platform !== undefined ? mergeAllowed(local, c.platform) : local);
      const r = await call(s.url, 'GET', `/api/v1/transactions/${id}/allowed-operations`, { headers: s.auth });
      expect(r.status).toBe(200);
      expect(r.json.allowedOperations[c.op]).toEqual({
        allowed: false,
        maxAmount: 0,
        maxAmountText: '0.00 EUR',
        reason: expect.any(String),
        reasonCode: c.code,
      });
    });
  }

  it('a refund sent anyway is refused with the same code, beside the error code', async () => {
    const row = saleRow({ clientTransactionId: 'R-SENT', refundedAmount: 1_000 });
    s.payments.view({ clientTransactionId: 'R-SENT', amount: row.amount });
    // The refusal the real rules throw for it (what PaymentService.refund throws).
    s.payments.operationError = captureError(() =>
      requireAmount(refundCheck(row, SOLD_AT + HOUR), undefined, 'refund', 'EUR'),
    );
    const r = await call(s.url, 'POST', '/api/v1/transactions/R-SENT/refund', { headers: s.auth, body: {} });
    expect(r.status).toBe(422);
    expect(r.json.error).toEqual({
      code: 'PAYMENT_RULE',
      message: expect.any(String),
      reasonCode: 'NOTHING_LEFT_TO_REFUND',
    });
  });

  // What only the attempt learns has a code too, so the counter says it in the clerk's language with what to do.
  const approvalRefusal = (errorCode: string, errorMessage: string): Error =>
    refusalError(
      new PlatformError(`refund refused: ${errorMessage}`, {
        category: 'rejected',
        operation: 'refund',
        method: 'POST',
        status: 400,
        errorCode,
        errorMessage,
        outcomeUnknown: false,
      }),
      'refund',
      'R-CODE-r',
    );
  const refusals: Array<{ code: string; error: () => Error }> = [
    {
      code: 'APPROVAL_CODE_REQUIRED',
      error: () => approvalRefusal('APPROVAL_CODE_REQUIRED', 'approvalCode is required for this merchant'),
    },
    {
      code: 'APPROVAL_CODE_INCORRECT',
      error: () => approvalRefusal('APPROVAL_CODE_INVALID', 'approvalCode is not correct'),
    },
    {
      code: 'AMOUNT_ABOVE_LEFT',
      error: () =>
        captureError(() =>
          requireAmount(
            refundCheck(saleRow({ clientTransactionId: 'R-CODE' }), SOLD_AT + HOUR),
            5_000,
            'refund',
            'EUR',
          ),
        ),
    },
  ];
  for (const r of refusals) {
    it(`a refund refused when sent: ${r.code} beside the error code`, async () => {
      s.payments.view({ clientTransactionId: 'R-CODE', amount: 1_000 });
      s.payments.operationError = r.error();
      const answer = await call(s.url, 'POST', '/api/v1/transactions/R-CODE/refund', { headers: s.auth, body: {} });
      expect(answer.status).toBe(422);
      expect(answer.json.error).toEqual({ code: 'PAYMENT_RULE', message: expect.any(String), reasonCode: r.code });
    });
  }

  it('an allowed operation carries neither reason nor code', async () => {
    const row = saleRow({ clientTransactionId: 'R-OK' });
    s.payments.view({ clientTransactionId: 'R-OK', amount: row.amount });
    s.payments.allowedFor.set('R-OK', localAllowed(row, SOLD_AT + HOUR));
    const r = await call(s.url, 'GET', '/api/v1/transactions/R-OK/allowed-operations', { headers: s.auth });
    expect(r.json.allowedOperations.cancel).toEqual({ allowed: true, maxAmount: 1_000, maxAmountText: '10.00 EUR' });
  });
});

function captureError(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the rules to refuse');
}
