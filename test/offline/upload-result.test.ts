import { describe, expect, it } from 'vitest';
import { answeredOutcome } from '../../src/offline/upload-result.js';
import type { TransactionRecord } from '../../src/platform/index.js';

const record = (transactionStatus: string): TransactionRecord => ({
  transactionStatus,
  serverTransactionId: 'srv-1',
  events: [],
});

// docs/platform-contract.md, "Tolerance of answers": statuses are compared case-insensitively;
// "Endpoints", offline upload: declined after upload when the status is refused, failed or expired.
describe('answered upload outcome', () => {
  it.each(['Refused', 'refused', 'REFUSED', 'Declined', 'failed', 'EXPIRED'])('%j is declined', (status) => {
    expect(answeredOutcome(record(status))).toBe('declined');
  });

  it.each(['Accepted', 'ACCEPTED', 'captured', 'Captured'])('%j is accepted', (status) => {
    expect(answeredOutcome(record(status))).toBe('accepted');
  });
});
