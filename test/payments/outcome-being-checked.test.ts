import { describe, expect, it } from 'vitest';
import type { TransactionView } from '../../src/payments/index.js';
import { toView } from '../../src/payments/view.js';
import { useDemoPlatform } from '../helpers/payment-terminal.js';

const fixture = useDemoPlatform();

/**
 * A sale whose answer was lost is looked up before anything else (docs/payments.md,
 * "Unknown outcome: resolution and reversal"): while it is, the view says so
 * (`outcomeBeingChecked`), so that no caller reads "sent, waiting for the answer" for a sale
 * whose outcome is unknown (docs/local-api.md, "A sale, step by step").
 */
describe('a sale being looked up after its answer was lost', () => {
  it('is in flight with outcomeBeingChecked until the platform gives its word; then it is gone', async () => {
    const t = await fixture.startTerminal({ config: { payments: { lookupGraceMs: 10_000 } } });
    fixture.demo.platform.faults.set('process', { drop: 'after', times: 1 });
    // The lookups do not see the sale for a moment: the lookup repeats, the row stays in flight.
    fixture.demo.platform.faults.set('status', { lookupLagMs: 1_500 });
    const seen: TransactionView[] = [];
    t.bus.on('transaction.updated', (e) => {
      const row = t.journal.get(String(e.data.clientTransactionId));
      if (row !== undefined) seen.push(toView(row));
    });
    try {
      const started = await t.service.startSale({ method: 'card', amount: 1_250, currency: 'EUR' });
      const done = await started.done;
      expect(done.state).toBe('approved');
      expect(done.outcomeBeingChecked).toBeUndefined();
      const checking = seen.filter((v) => v.outcomeBeingChecked === true);
      expect(checking.length).toBeGreaterThan(0);
      expect(checking.every((v) => v.state === 'in_flight')).toBe(true);
      // Sent and waiting for its answer is not being checked.
      expect(seen.find((v) => v.state === 'in_flight' && v.outcomeBeingChecked !== true)).toBeDefined();
    } finally {
      fixture.demo.platform.faults.clear();
    }
  });
});
