import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/core/index.js';
import {
  cancelCheck,
  captureCheck,
  checkMotoEntryMode,
  localAllowed,
  mergeAllowed,
  refundCheck,
  requireAmount,
} from '../../src/payments/rules.js';
import { errorOf } from '../helpers/agent-error.js';
import { DAY, SOLD_AT, saleRow } from './sale-row.js';

// The money rules as a clerk meets them (docs/payments.md, "Capture, cancel, refund";
// docs/platform-contract.md, "Decisions where the spec is silent", windows). Written to
// kill the mutants `npm run mutate` found surviving (test/README.md, "Mutation testing").

const none = { refund: 0, cancel: 0, capture: 0 };
const card = (over = {}) => saleRow({ method: 'card', scenario: undefined, ...over });
const refusalOf = (c: ReturnType<typeof cancelCheck>) => {
  if (c.ok) throw new Error(`expected a refusal, got maxAmount ${c.maxAmount}`);
  return c.refusal;
};

describe('the refund window depends on the method', () => {
  it('walletB refunds are allowed up to 180 days after the sale, to the millisecond, and refused after', () => {
    const s = saleRow({ method: 'walletB' });
    expect(refundCheck(s, SOLD_AT + 180 * DAY)).toEqual({ ok: true, maxAmount: 1_000 });
    const late = refusalOf(refundCheck(s, SOLD_AT + 180 * DAY + 1));
    expect(late.message).toContain('walletB refund window (180 days after the sale)');
    expect(late.details).toEqual({ deadline: '2026-08-28T10:00:00.000Z' });
    expect(late.code).toBe(ErrorCodes.PAYMENT_RULE);
  });

  it('walletA and card sales have no refund window: a year later they are still refunded', () => {
    expect(refundCheck(saleRow({ method: 'walletA' }), SOLD_AT + 365 * DAY)).toEqual({ ok: true, maxAmount: 1_000 });
    expect(refundCheck(card({ capturedAmount: 1_000, platformStatus: 'Captured' }), SOLD_AT + 365 * DAY)).toEqual({
      ok: true,
      maxAmount: 1_000,
    });
  });
});

describe('the cancel window depends on the method', () => {
  it('walletB: 24 hours after the sale, not before it', () => {
    const s = saleRow({ method: 'walletB' });
    expect(cancelCheck(s, SOLD_AT + DAY - 1)).toEqual({ ok: true, maxAmount: 1_000 });
    const r = refusalOf(cancelCheck(s, SOLD_AT + DAY));
    expect(r.message).toBe(
      'the walletB cancel window (for 24 hours after the sale) ended at 2026-03-02T10:00:00.000Z: a refund is offered instead',
    );
    expect(r.details).toEqual({ suggest: 'refund', deadline: '2026-03-02T10:00:00.000Z' });
  });

  it('walletA: until 00:15 UTC+8 the next day, and the refusal says so', () => {
    const s = saleRow({ method: 'walletA' }); // 18:00 UTC+8 on 1 March
    expect(cancelCheck(s, Date.parse('2026-03-01T16:14:59.999Z')).ok).toBe(true);
    const r = refusalOf(cancelCheck(s, Date.parse('2026-03-01T16:15:00.000Z')));
    expect(r.message).toBe(
      'the walletA cancel window (until 00:15 UTC+8 on the day after the sale) ended at 2026-03-01T16:15:00.000Z: a refund is offered instead',
    );
    expect(r.details).toEqual({ suggest: 'refund', deadline: '2026-03-01T16:15:00.000Z' });
  });

  it('a card authorization has no cancel window: it is cancelled weeks later', () => {
    expect(cancelCheck(card(), SOLD_AT + 40 * DAY)).toEqual({ ok: true, maxAmount: 1_000 });
  });

  it('a sale whose clientDateTime cannot be read is timed from when the row was made', () => {
    const s = saleRow({ method: 'walletB', clientDateTime: 'not a time', createdAt: '2026-03-05T10:00:00.000Z' });
    expect(cancelCheck(s, Date.parse('2026-03-06T09:59:59.999Z')).ok).toBe(true);
    expect(cancelCheck(s, Date.parse('2026-03-06T10:00:00.000Z')).ok).toBe(false);
  });
});

describe('what is left to cancel', () => {
  it('is the amount less what was cancelled, refunded, and what cancels and refunds in flight will take', () => {
    const s = saleRow({ method: 'walletA', cancelledAmount: 200, refundedAmount: 300 });
    expect(cancelCheck(s, SOLD_AT, { refund: 50, cancel: 100, capture: 0 })).toEqual({ ok: true, maxAmount: 350 });
    expect(cancelCheck(s, SOLD_AT, { refund: 0, cancel: 0, capture: 0 })).toEqual({ ok: true, maxAmount: 500 });
  });

  it('nothing left is refused, whether cancelled, refunded or in flight', () => {
    for (const over of [
      { cancelledAmount: 1_000 },
      { refundedAmount: 1_000 },
      { cancelledAmount: 400, refundedAmount: 600 },
    ]) {
      const r = refusalOf(cancelCheck(saleRow(over), SOLD_AT));
      expect(r.message).toBe('nothing is left to cancel on this sale');
      expect(r.code).toBe(ErrorCodes.PAYMENT_RULE);
    }
    expect(cancelCheck(saleRow(), SOLD_AT, { refund: 400, cancel: 600, capture: 0 }).ok).toBe(false);
  });

  it('a captured card sale is refunded instead, whichever of amount or status says captured', () => {
    for (const over of [
      { capturedAmount: 1_000, platformStatus: 'Accepted' },
      { capturedAmount: 0, platformStatus: 'Captured' },
    ]) {
      const r = refusalOf(cancelCheck(card(over), SOLD_AT));
      expect(r.message).toBe('the sale is captured and can no longer be cancelled: refund it instead');
      expect(r.details).toEqual({ suggest: 'refund' });
      expect(r.code).toBe(ErrorCodes.PAYMENT_STATE);
    }
    expect(cancelCheck(card({ capturedAmount: 0, platformStatus: 'Accepted' }), SOLD_AT)).toEqual({
      ok: true,
      maxAmount: 1_000,
    });
  });
});

describe('what is left to refund', () => {
  it('a wallet sale: the amount less what was cancelled and refunded, and refunds in flight', () => {
    const s = saleRow({ cancelledAmount: 300, refundedAmount: 200 });
    expect(refundCheck(s, SOLD_AT, none)).toEqual({ ok: true, maxAmount: 500 });
    expect(refundCheck(s, SOLD_AT, { refund: 100, cancel: 0, capture: 0 })).toEqual({ ok: true, maxAmount: 400 });
  });

  it('a card sale: what was captured, not what was authorized', () => {
    expect(refundCheck(card({ capturedAmount: 600, platformStatus: 'Captured' }), SOLD_AT)).toEqual({
      ok: true,
      maxAmount: 600,
    });
    expect(
      refundCheck(card({ capturedAmount: 600, refundedAmount: 250, platformStatus: 'Captured' }), SOLD_AT),
    ).toEqual({ ok: true, maxAmount: 350 });
  });

  it('an uncaptured card sale is cancelled instead: nothing was charged', () => {
    const r = refusalOf(refundCheck(card({ capturedAmount: 0 }), SOLD_AT));
    expect(r.message).toBe('the sale is authorized but not captured: cancel it instead (nothing was charged yet)');
    expect(r.details).toEqual({ suggest: 'cancel' });
    expect(r.code).toBe(ErrorCodes.PAYMENT_STATE);
    expect(refundCheck(card({ capturedAmount: 1, platformStatus: 'Captured' }), SOLD_AT)).toEqual({
      ok: true,
      maxAmount: 1,
    });
  });

  it('a fully refunded sale says so', () => {
    const r = refusalOf(refundCheck(saleRow({ refundedAmount: 1_000 }), SOLD_AT));
    expect(r.message).toBe('the sale is fully refunded');
    expect(r.code).toBe(ErrorCodes.PAYMENT_RULE);
  });
});

describe('capture', () => {
  it('after a partial cancel only the rest is captured, less cancels in flight', () => {
    const s = card({ cancelledAmount: 400 });
    expect(captureCheck(s, none)).toEqual({ ok: true, maxAmount: 600 });
    expect(captureCheck(s, { refund: 0, cancel: 100, capture: 0 })).toEqual({ ok: true, maxAmount: 500 });
  });

  it('a fully cancelled authorization has nothing left to capture', () => {
    const r = refusalOf(captureCheck(card({ cancelledAmount: 1_000 }), none));
    expect(r.message).toBe('nothing is left to capture on this sale');
    expect(captureCheck(card({ cancelledAmount: 600 }), { refund: 0, cancel: 400, capture: 0 }).ok).toBe(false);
  });

  it('a captured sale is not captured again, whichever of amount or status says so', () => {
    for (const over of [
      { capturedAmount: 1_000, platformStatus: 'Accepted' },
      { capturedAmount: 0, platformStatus: 'Captured' },
    ]) {
      const r = refusalOf(captureCheck(card(over), none));
      expect(r.message).toBe('the sale is captured already');
      expect(r.code).toBe(ErrorCodes.PAYMENT_STATE);
    }
  });

  it('only card sales are captured; a second capture waits for the first', () => {
    const wallet = refusalOf(captureCheck(saleRow(), none));
    expect(wallet.message).toBe('only card sales are captured');
    expect(wallet.code).toBe(ErrorCodes.PAYMENT_STATE);
    expect(refusalOf(captureCheck(card(), { refund: 0, cancel: 0, capture: 1 })).message).toBe(
      'a capture of this sale is already under way',
    );
  });
});

describe('manual and MOTO sales follow the card rules', () => {
  it.each(['manual', 'moto'] as const)(
    '%s: captured is refunded, not cancelled; an authorization is captured',
    (method) => {
      const captured = saleRow({ method, scenario: undefined, capturedAmount: 1_000, platformStatus: 'Captured' });
      expect(refusalOf(cancelCheck(captured, SOLD_AT)).details).toEqual({ suggest: 'refund' });
      expect(refundCheck(captured, SOLD_AT)).toEqual({ ok: true, maxAmount: 1_000 });
      const authorized = saleRow({ method, scenario: undefined });
      expect(captureCheck(authorized, none)).toEqual({ ok: true, maxAmount: 1_000 });
      expect(refusalOf(refundCheck(authorized, SOLD_AT)).details).toEqual({ suggest: 'cancel' });
    },
  );
});

describe('which rows can be cancelled, refunded or captured at all', () => {
  it('only a sale, and the refusal names what the row is', () => {
    const r = refusalOf(cancelCheck(saleRow({ kind: 'refund', clientTransactionId: 'r-9' }), SOLD_AT));
    expect(r.message).toBe('only a sale can be cancelled; r-9 is a refund');
    expect(r.code).toBe(ErrorCodes.PAYMENT_STATE);
    expect(refusalOf(refundCheck(saleRow({ kind: 'cancel', clientTransactionId: 'c-9' }), SOLD_AT)).message).toBe(
      'only a sale can be refunded; c-9 is a cancel',
    );
  });

  it('a sale not approved is refused with its state, in words', () => {
    const r = refusalOf(captureCheck(card({ state: 'needs_attention' }), none));
    expect(r.message).toBe('a needs attention sale cannot be captured');
    expect(r.details).toEqual({ state: 'needs_attention' });
    expect(r.code).toBe(ErrorCodes.PAYMENT_STATE);
  });
});

describe('the amount asked for', () => {
  it('defaults to everything left, may be exactly what is left, never more', () => {
    const check = cancelCheck(saleRow({ cancelledAmount: 400 }), SOLD_AT);
    expect(requireAmount(check, undefined, 'cancel', 'EUR')).toBe(600);
    expect(requireAmount(check, 600, 'cancel', 'EUR')).toBe(600);
    expect(requireAmount(check, 250, 'cancel', 'EUR')).toBe(250);
    const tooMuch = errorOf(() => requireAmount(check, 601, 'cancel', 'EUR'));
    expect(tooMuch.code).toBe(ErrorCodes.PAYMENT_RULE);
    expect(tooMuch.message).toBe('a cancel of 6.01 EUR is more than the 6.00 EUR left to cancel');
    expect(tooMuch.details).toEqual({ maxAmount: 600, currency: 'EUR', reasonCode: 'AMOUNT_ABOVE_LEFT' });
  });

  it('a refused check throws its refusal with its code, details and reason code', () => {
    const err = errorOf(() => requireAmount(refundCheck(card(), SOLD_AT), 100, 'refund', 'EUR'));
    expect(err.code).toBe(ErrorCodes.PAYMENT_STATE);
    expect(err.details).toEqual({ suggest: 'cancel', reasonCode: 'NOT_CAPTURED_CANCEL_INSTEAD' });
  });
});

describe('mail/telephone orders', () => {
  it('are keyed in; any other entry mode is refused naming it', () => {
    expect(() => checkMotoEntryMode('Keyed')).not.toThrow();
    const err = errorOf(() => checkMotoEntryMode('Contactless'));
    expect(err.code).toBe(ErrorCodes.PAYMENT_RULE);
    expect(err.message).toBe('a mail/telephone order must be keyed in (entry mode Keyed), not Contactless');
    expect(err.details).toEqual({ entryMode: 'Contactless' });
  });
});

describe('allowed operations shown to the clerk', () => {
  it('the local view says it is not from the platform', () => {
    expect(localAllowed(saleRow(), SOLD_AT).fromPlatform).toBe(false);
  });

  it('an answer that is not a record, or whose allowed is not a boolean, changes nothing but the source', () => {
    const local = localAllowed(saleRow(), SOLD_AT);
    for (const answer of [null, undefined, 'yes', { allowed: 'yes', maxAmount: 1 }, {}]) {
      expect(mergeAllowed(local, answer as unknown as Record<string, unknown>)).toEqual({
        ...local,
        fromPlatform: true,
      });
    }
  });

  it('when the local rules offer a refund instead of a cancel, the platform record bounds the refund', () => {
    const local = localAllowed(card({ capturedAmount: 1_000, platformStatus: 'Captured' }), SOLD_AT);
    expect(local.cancel.allowed).toBe(false);
    const merged = mergeAllowed(local, { allowed: true, maxAmount: 400 });
    expect(merged.refund).toEqual({ allowed: true, maxAmount: 400 });
    expect(merged.cancel).toEqual(local.cancel);
  });

  it('the platform cannot open what the local rules refuse, and its refusal keeps the local reason', () => {
    // Fully refunded: local refuses cancel and refund; the platform says allowed.
    const local = localAllowed(saleRow({ refundedAmount: 1_000 }), SOLD_AT);
    const merged = mergeAllowed(local, { allowed: true, maxAmount: 500 });
    expect(merged.refund).toEqual(local.refund);
    expect(merged.cancel).toEqual(local.cancel);
    const refused = mergeAllowed(local, { allowed: false });
    expect(refused.refund).toEqual({
      allowed: false,
      maxAmount: 0,
      reason: 'the sale is fully refunded',
      reasonCode: 'NOTHING_LEFT_TO_REFUND',
    });
    const open = mergeAllowed(localAllowed(saleRow(), SOLD_AT), { allowed: false });
    expect(open.cancel).toEqual({
      allowed: false,
      maxAmount: 0,
      reason: 'the platform does not allow it for this transaction',
      reasonCode: 'PLATFORM_NOT_ALLOWED',
    });
  });
});
