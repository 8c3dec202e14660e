import { configDefaults, defineConfig } from 'vitest/config';
import { PROCESS_SUITES } from './tests/process-suites.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // real agents, minutes each: `npm run test:slow`; processes, browser, client timeouts: `npm run test:processes`
    exclude: [...configDefaults.exclude, 'tests/slow/**', ...PROCESS_SUITES],
    // no wall-clock limits (0 turns them off): a loaded machine is slow, not wrong; tests wait on events
    testTimeout: 0,
    hookTimeout: 0,
  },
});
