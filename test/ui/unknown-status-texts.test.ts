import { describe, expect, it } from 'vitest';
import { saleExitCode, transactionDetail } from '../../src/cli/transaction-output.js';
import { de } from '../../src/ui/page/texts-de.js';
import { en } from '../../src/ui/page/texts-en.js';
import { unknownPlatformStatus } from '../../src/ui/page/unknown-status.js';
import { sampleSale } from '../helpers/sample-transaction.js';

// A sale whose platform status is a word the agent does not know (docs/platform-contract.md,
// "Tolerance of answers", status values): the counter page, in English and German, and the
// CLI say what the platform said and to check before handing over goods; never "declined",
// "failed" or "nothing charged".

const sale = sampleSale({
  state: 'needs_attention',
  platformStatus: 'Completed',
  message: 'the platform says Completed: check before handing over goods',
});

const fill = (text: string, status: string): string => text.replace('{status}', status);

describe('counter page', () => {
  it('the sale is shown with the platform word (texts.ts outcomeOf and stateText take it from here)', () => {
    expect(unknownPlatformStatus(sale)).toBe('Completed');
  });

  it('English and German: the platform word with "check before handing over goods"', () => {
    expect(fill(en['outcome.unknownStatus'], 'Completed')).toBe(
      'The platform says Completed: check before handing over goods',
    );
    expect(fill(en['state.unknownStatus'], 'Completed')).toBe('platform says Completed: check');
    expect(fill(de['outcome.unknownStatus'], 'Completed')).toBe(
      'Die Plattform meldet Completed: vor der Warenausgabe prüfen',
    );
    expect(fill(de['state.unknownStatus'], 'Completed')).toBe('Plattform meldet Completed: prüfen');
  });

  it('a sale needing attention for another reason, or an operation, keeps its own words', () => {
    expect(
      unknownPlatformStatus({
        ...sale,
        platformStatus: 'Accepted',
        message: 'the sale could not be reversed (refused); check it and refund if charged',
      }),
    ).toBeUndefined();
    expect(unknownPlatformStatus({ ...sale, kind: 'refund' })).toBeUndefined();
    expect(unknownPlatformStatus({ ...sale, state: 'approved' })).toBeUndefined();
  });
});

describe('CLI', () => {
  it('prints the platform word and exits 3 (not final, followed), never 2 (the answer is no: a script may take the sale again)', () => {
    expect(transactionDetail(sale)).toContain(
      'message      the platform says Completed: check before handing over goods',
    );
    expect(saleExitCode(sale)).toBe(3);
  });
});
