// What `npm run mutate` mutates, in groups, each with the fast unit tests that pin it down
// (test/README.md, "Mutation testing"). A mutant of code run while a module loads (a
// "static" mutant) reloads and runs every test of its run: grouping keeps those runs to the
// tests of their own group. Every test of a group runs for every mutant it covers, so a
// group must hold every test that can notice its files' mutants.
// Plain JavaScript: stryker.config.mjs, vitest.mutation.config.ts and run.mjs all read it.
import { readFileSync } from 'node:fs';

/**
 * `file:from-to`, the lines from the one holding `first` to the end of the method that
 * `last` opens (its first line at the same indentation that is `}`), found when the
 * configuration is read, so the range moves with the code above it.
 * @param {string} file @param {string} first @param {string} last
 */
function methodsRange(file, first, last) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const from = lines.findIndex((l) => l.includes(first));
  const open = lines.findIndex((l) => l.includes(last));
  if (from < 0 || open < 0) throw new Error(`mutation group: "${first}" or "${last}" not found in ${file}`);
  const indent = /** @type {RegExpMatchArray} */ (lines[open].match(/^\s*/))[0];
  const to = lines.findIndex((l, i) => i > open && l === `${indent}}`);
  return `${file}:${from + 1}-${to + 1}`;
}

/** @typedef {{ name: string, mutate: string[], tests: string[], exclude?: string[] }} MutationGroup */

/** @type {MutationGroup[]} */
export const GROUPS = [
  {
    name: 'core',
    mutate: [
      'src/payments/rules.ts',
      'src/payments/money.ts',
      'src/offline/policy.ts',
      'src/devices/link/parser.ts',
      'src/devices/link/writer.ts',
      'src/devices/link/frame.ts',
      'src/auth/jwt.ts',
      'src/events/relay-policy.ts',
      'src/devices/link/crc.ts',
      'src/events/server-time.ts',
      'src/payments/outcome.ts',
      'src/payments/cancel-outcome.ts',
      // The status classification, and the amount and QR readers.
      'src/payments/records.ts',
      'src/payments/late-landing.ts',
      'src/offline/upload-result.ts',
      // The reversal through its decisions and its retry wait; reversal.ts is the I/O around
      // them, tested against the demo platform.
      'src/payments/reversal-outcome.ts',
      'src/payments/reversal-delay.ts',
    ],
    tests: [
      'test/payments/rules*.test.ts',
      'test/payments/money*.test.ts',
      'test/payments/outcome-decisions.test.ts',
      'test/payments/cancel-history.test.ts',
      'test/payments/records*.test.ts',
      'test/payments/late-landing-decisions.test.ts',
      'test/payments/reversal-delay.test.ts',
      'test/payments/reversal-outcome.test.ts',
      'test/offline/policy*.test.ts',
      'test/offline/upload-result.test.ts',
      'test/offline/upload-failure.test.ts',
      'test/devices/link-parser*.test.ts',
      'test/devices/link-frame*.test.ts',
      'test/devices/link-writer*.test.ts',
      'test/devices/link.test.ts',
      'test/auth/jwt*.test.ts',
      'test/events/relay*.test.ts',
      'test/events/server-time*.test.ts',
    ],
    exclude: ['test/events/relay-strict.test.ts'],
  },
  {
    // The journal's state moves: the rule (moves.ts) and where the journal records a state
    // (Journal.allowedMove and writePatch: the move refused or written, card data with it),
    // not the rest of its SQL plumbing; and the offline queue's states, whole file.
    name: 'journal-queue',
    mutate: [
      'src/payments/journal/moves.ts',
      methodsRange('src/payments/journal/journal.ts', 'private allowedMove(', 'private writePatch('),
      'src/offline/queue.ts',
    ],
    tests: [
      'test/payments/journal-moves.test.ts',
      'test/offline/queue-states.test.ts',
      'test/offline/queue-paging.test.ts',
    ],
  },
  {
    // The request schemas are built when the module loads: most of their mutants are static.
    name: 'api-requests',
    mutate: ['src/ui/shared/schemas.ts'],
    tests: ['test/ui/request-validation.test.ts'],
  },
];

/** @param {string | undefined} name */
export function groupNamed(name) {
  const group = GROUPS.find((g) => g.name === name);
  if (group === undefined)
    throw new Error(`no mutation group "${name}": one of ${GROUPS.map((g) => g.name).join(', ')}`);
  return group;
}
