import { defineConfig } from 'vitest/config';
import { GROUPS, groupNamed } from './scripts/mutation/groups.mjs';

/**
 * The unit tests that pin down the money-critical modules `npm run mutate` mutates
 * (scripts/mutation/groups.mjs; test/README.md, "Mutation testing"). Kept to fast tests with
 * no platform, port or browser so each mutant runs in well under a second; `npm test` uses
 * vitest.config.ts and never this file. `MUTATION_GROUP` (set by scripts/mutation/run.mjs)
 * narrows it to one group's tests; without it, every group's.
 */
const groups = process.env.MUTATION_GROUP === undefined ? GROUPS : [groupNamed(process.env.MUTATION_GROUP)];

export default defineConfig({
  test: {
    include: groups.flatMap((g) => g.tests),
    exclude: groups.flatMap((g) => g.exclude ?? []),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
