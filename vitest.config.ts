import { configDefaults, defineConfig } from 'vitest/config';
import { PROCESS_SUITES } from './tests/process-suites.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // real agents, minutes each: `npm run test:slow`; processes, browser, client timeouts: `npm run test:processes`
    exclude: [...configDefaults.exclude, 'tests/slow/**', ...PROCESS_SUITES],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
