import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser and server tests start real processes; keep files sequential on a 2-core machine.
    fileParallelism: false,
  },
});
