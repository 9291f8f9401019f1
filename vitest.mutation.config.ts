import { defineConfig } from 'vitest/config';

/**
 * The unit tests that pin down the money-critical modules `npm run mutate` mutates
 * (stryker.config.mjs; test/README.md, "Mutation testing"). Kept to fast tests with no
 * platform, port or browser so each mutant runs in well under a second; `npm test` uses
 * vitest.config.ts and never this file.
 */
export default defineConfig({
  test: {
    include: [
      'test/payments/rules*.test.ts',
      'test/payments/money*.test.ts',
      'test/payments/outcome-decisions.test.ts',
      'test/payments/cancel-history.test.ts',
      'test/payments/records*.test.ts',
      'test/payments/late-landing-decisions.test.ts',
      'test/offline/policy*.test.ts',
      'test/offline/upload-result.test.ts',
      'test/offline/upload-failure.test.ts',
      'test/offline/queue-states.test.ts',
      'test/payments/journal-moves.test.ts',
      'test/devices/link-parser*.test.ts',
      'test/devices/link-frame*.test.ts',
      'test/devices/link-writer*.test.ts',
      'test/devices/link.test.ts',
      'test/auth/jwt*.test.ts',
      'test/events/relay*.test.ts',
      'test/events/server-time*.test.ts',
      'test/ui/request-validation.test.ts',
    ],
    exclude: ['test/events/relay-strict.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
