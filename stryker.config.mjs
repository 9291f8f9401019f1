// Mutation testing of the money-critical modules: `npm run mutate` (test/README.md,
// "Mutation testing"). One file while working: `npm run mutate -- --mutate src/payments/rules.ts`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // The money-critical modules measured so far (test/README.md, "Mutation testing", which
  // also lists those still to add: the reversal, the amount and QR readers of
  // payments/records.ts).
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
    // The status classification only (recordStatus to resultMessage); the amount and QR
    // readers below it are still to add.
    'src/payments/records.ts:18-90',
    'src/payments/late-landing.ts',
    'src/offline/upload-result.ts',
    'src/ui/schemas.ts',
    // The journal's state moves: the rule (moves.ts) and where the journal records a state
    // (Journal.allowedMove and writePatch: the move refused or written, card data with it);
    // not the rest of the SQL plumbing. And the offline queue's states, whole file.
    'src/payments/journal/moves.ts',
    'src/payments/journal/journal.ts:709-745',
    'src/offline/queue.ts',
  ],
  // The sandbox needs the sources, the tests and the configs, not builds, data or reports.
  ignorePatterns: ['dist', 'data', 'reports', 'test-artifacts', 'coverage', 'packages', '.ci', 'certs/*.pem', 'deploy'],
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  tempDirName: 'reports/mutation/.stryker-tmp',
  // Two shared cores: one worker, plus the checker.
  concurrency: 1,
  thresholds: { high: 90, low: 80, break: null },
};
