import { defineConfig } from 'vitest/config';
import { PROCESS_SUITES } from './process-suites.js';

// `npm run test:processes`: the suites that start processes or wait on real timeouts.
export default defineConfig({
  test: {
    include: [...PROCESS_SUITES],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
