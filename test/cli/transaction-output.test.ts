import { describe, expect, it } from 'vitest';
import { operationExitCode, pendingNote } from '../../src/cli/transaction-output.js';
import type { ApiTransaction } from '../../src/ui/index.js';
import { progressText } from '../../src/cli/commands/sale.js';

/** What the CLI says after a cancel, refund or capture that is not final (README.md, "Exit codes"). */
const op = (state: string, message?: string): ApiTransaction =>
  ({
    clientTransactionId: 'op-1',
    kind: 'refund',
    state,
    ...(message !== undefined ? { message } : {}),
  }) as unknown as ApiTransaction;

describe('an operation answered while the journal could not write', () => {
  it('says the outcome is being recorded (not "not known"), do not repeat it; exit 3 like pending', () => {
    const t = op(
      'in_flight',
      'outcome being recorded: the platform answered the refund, but the journal cannot write (SQLITE_FULL); it is written once space is freed in the data directory: do not repeat the refund',
    );
    expect(pendingNote(t)).toMatch(
      /^the platform answered; the outcome is being recorded once the journal can write \(do not repeat it\)/,
    );
    expect(operationExitCode(t)).toBe(3);
  });

  it('an outcome still being looked up keeps its own words', () => {
    expect(pendingNote(op('in_flight', 'the platform did not answer in time: checking whether it happened'))).toMatch(
      /not known yet: the agent is checking/,
    );
  });
});

describe('a sale the CLI waits for', () => {
  const sale = (extra: Record<string, unknown>): ApiTransaction =>
    ({ clientTransactionId: 's-1', kind: 'sale', state: 'in_flight', ...extra }) as unknown as ApiTransaction;

  it('whose answer was lost says the outcome is being checked, do not repeat it; one still on its way says so', () => {
    expect(progressText(sale({ outcomeBeingChecked: true }))).toBe(
      'no answer from the platform: the outcome is being checked; do not repeat the sale',
    );
    expect(progressText(sale({}))).toBe('sent to the platform, waiting for the answer');
  });
});
