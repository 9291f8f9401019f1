import { describe, expect, it } from 'vitest';
import { QR_CHECKING_MESSAGE } from '../../src/payments/qr-call.js';
import { en } from '../../src/ui/page/texts-en.js';
import { beingChecked } from '../../src/ui/page/types.js';

// A terminal QR sale the platform has not given its word on (docs/payments.md, "Wallet QR,
// merchant scan"): the counter page tells the clerk not to repeat it, offers the abort and the next sale.
describe('a terminal QR sale being checked on the counter page', () => {
  it("is recognised by the agent's own message while in flight; the clerk is told not to repeat it", () => {
    expect(beingChecked({ state: 'in_flight', message: QR_CHECKING_MESSAGE })).toBe(true);
    expect(en['pending.beingChecked']).toMatch(/do not repeat the sale/i);
  });

  it('any other sale in flight is not, nor a final row with that message', () => {
    expect(beingChecked({ state: 'in_flight', message: 'sent to the platform (terminal QR call)' })).toBe(false);
    expect(beingChecked({ state: 'in_flight' })).toBe(false);
    expect(beingChecked({ state: 'needs_attention', message: QR_CHECKING_MESSAGE })).toBe(false);
  });
});
