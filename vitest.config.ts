import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Hashes every input file before and after the run: nothing the tests serve or read may be modified.
    globalSetup: ['test/setup/inputsUnchanged.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser and server tests start real processes; keep files sequential on a 2-core machine.
    fileParallelism: false,
  },
});
