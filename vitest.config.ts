import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests share loopback ports chosen at run time and real SQLite files in temp dirs;
    // files run in parallel worker processes, tests inside a file run in order.
    pool: 'forks',
    maxWorkers: 2,
  },
});
