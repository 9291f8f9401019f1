import { describe, expect, it } from 'vitest';
import { saleRow } from './sale-row.js';
import {
  cancelCheck,
  captureCheck,
  localAllowed,
  mergeAllowed,
  refundCheck,
  walletACancelDeadline,
  walletBCancelDeadline,
} from '../../src/payments/rules.js';

const sale = saleRow;

describe('cancel and refund windows', () => {
  it('walletA: until 00:15 UTC+8 on the day after the sale, by the UTC+8 calendar day', () => {
    // 23:59:59 UTC+8 on 1 March: the next day starts a second later.
    expect(new Date(walletACancelDeadline(Date.parse('2026-03-01T15:59:59Z'))).toISOString()).toBe(
      '2026-03-01T16:15:00.000Z',
    );
    // 00:00:00 UTC+8 on 2 March: the deadline is 00:15 on 3 March.
    expect(new Date(walletACancelDeadline(Date.parse('2026-03-01T16:00:00Z'))).toISOString()).toBe(
      '2026-03-02T16:15:00.000Z',
    );
    expect(new Date(walletACancelDeadline(Date.parse('2026-12-31T20:00:00Z'))).toISOString()).toBe(
      '2027-01-01T16:15:00.000Z',
    );
  });

  it('walletB: 24 hours; cancelCheck refuses at the deadline with a refund suggestion', () => {
    const s = sale({ method: 'walletB' });
    const deadline = walletBCancelDeadline(Date.parse(s.clientDateTime));
    expect(cancelCheck(s, deadline - 1)).toEqual({ ok: true, maxAmount: 1_000 });
    const refused = cancelCheck(s, deadline);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.refusal.details).toMatchObject({ suggest: 'refund' });
  });

  it('open operations count against what is left (no double refund while one is in flight)', () => {
    const s = sale({ method: 'card', capturedAmount: 1_000, platformStatus: 'Captured' });
    expect(refundCheck(s, Date.parse(s.clientDateTime), { refund: 600, cancel: 0, capture: 0 })).toEqual({
      ok: true,
      maxAmount: 400,
    });
    expect(refundCheck(s, 0, { refund: 1_000, cancel: 0, capture: 0 }).ok).toBe(false);
    expect(captureCheck(sale({ method: 'card' }), { refund: 0, cancel: 0, capture: 1 }).ok).toBe(false);
  });

  it('offline sales and unfinished sales cannot be cancelled or refunded yet', () => {
    const offline = cancelCheck(sale({ method: 'card', state: 'offline_stored' }), 0);
    expect(offline.ok).toBe(false);
    if (!offline.ok) expect(offline.refusal.message).toMatch(/not uploaded yet/);
    expect(refundCheck(sale({ state: 'in_flight' }), 0).ok).toBe(false);
  });
});

describe('mergeAllowed', () => {
  // Built inside each test, not when the file is collected, so mutation testing counts it per test.
  const localView = () => localAllowed(sale(), Date.parse('2026-03-01T10:00:00Z'));

  it('only the record the contract defines is read: fields beyond {allowed, maxAmount, currency} change nothing', () => {
    const local = localView();
    const merged = mergeAllowed(local, {
      allowed: true,
      maxAmount: 400,
      currency: 'EUR',
      operation: 'refund',
      operations: {
        cancel: { allowed: false, maxAmount: 0 },
        refund: { allowed: true, maxAmount: 900 },
        capture: { allowed: true, maxAmount: 1_000 },
      },
    });
    expect(merged).toEqual(mergeAllowed(local, { allowed: true, maxAmount: 400, currency: 'EUR' }));
    expect(merged).toMatchObject({
      fromPlatform: true,
      cancel: { allowed: true, maxAmount: 400 },
      refund: local.refund,
      capture: local.capture,
    });
  });

  it('a bare spec record applies to the operation that applies now; a refusal to both', () => {
    const local = localView();
    expect(mergeAllowed(local, { allowed: true, maxAmount: 300 }).cancel).toEqual({ allowed: true, maxAmount: 300 });
    const refused = mergeAllowed(local, { allowed: false, maxAmount: 0 });
    expect(refused.cancel.allowed).toBe(false);
    expect(refused.refund.allowed).toBe(false);
  });

  it('the platform never widens what the local rules refuse', () => {
    const local = localView();
    const merged = mergeAllowed(local, { allowed: true, maxAmount: 5_000 });
    expect(merged.capture.allowed).toBe(false);
    expect(merged.cancel.maxAmount).toBe(local.cancel.maxAmount);
  });
});

describe('status casing (docs/platform-contract.md, "Tolerance of answers": statuses compared case-insensitively)', () => {
  // capturedAmount 0 on purpose: the status word alone must say captured, in any casing.
  it.each(['Captured', 'captured', 'CAPTURED', ' captured '])(
    'a card sale with status %j is captured: no cancel, no second capture',
    (status) => {
      const card = sale({ method: 'card', scenario: undefined, platformStatus: status, capturedAmount: 0 });
      const cancel = cancelCheck(card, Date.parse('2026-03-01T10:05:00Z'));
      expect(cancel.ok).toBe(false);
      if (!cancel.ok) expect(cancel.refusal.details).toEqual({ suggest: 'refund' });
      const capture = captureCheck(card);
      expect(capture.ok).toBe(false);
      if (!capture.ok) expect(capture.refusal.message).toBe('the sale is captured already');
    },
  );

  it('an authorization (Accepted, any casing) can be captured', () => {
    expect(captureCheck(sale({ method: 'card', scenario: undefined, platformStatus: 'ACCEPTED' })).ok).toBe(true);
  });
});
