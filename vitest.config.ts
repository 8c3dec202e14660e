import { configDefaults, defineConfig } from 'vitest/config';
import { PROCESS_SUITES } from './tests/process-suites.js';

/** The unit tests of the pure core: no I/O, no module state, so one module graph serves every file. */
const CORE_UNIT_TESTS = 'tests/unit/core/**/*.test.ts';

export default defineConfig({
  test: {
    // real agents, minutes each: `npm run test:slow`; processes, browser, client timeouts: `npm run test:processes`
    exclude: [...configDefaults.exclude, 'tests/slow/**', ...PROCESS_SUITES],
    // no wall-clock limits (0 turns them off): a loaded machine is slow, not wrong; tests wait on events
    testTimeout: 0,
    hookTimeout: 0,
    // one worker per core, not vitest's cores - 1: most suites wait on servers, sockets and the
    // disk, so on a 2-core machine a second worker cuts the run by a fifth (322 s → 255 s)
    maxWorkers: '100%',
    projects: [
      {
        extends: true,
        test: {
          name: 'core',
          include: [CORE_UNIT_TESTS],
          // loading the modules was most of the unit run's time: the core's suites share them
          isolate: false,
          pool: 'threads',
          // a suite that stubs an environment variable must not hand it to the next file
          unstubEnvs: true,
        },
      },
      {
        extends: true,
        test: {
          name: 'rest',
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'tests/slow/**', ...PROCESS_SUITES, CORE_UNIT_TESTS],
        },
      },
    ],
  },
});
