// Mutation testing of the money-critical modules: `npm run mutate` (test/README.md,
// "Mutation testing"). One file while working: `npm run mutate -- --mutate src/payments/rules.ts`.
import { GROUPS } from './scripts/mutation/groups.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // Every group's files (scripts/mutation/groups.mjs); `npm run mutate` runs them group by
  // group so a static mutant runs only its group's tests.
  mutate: GROUPS.flatMap((g) => g.mutate),
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
