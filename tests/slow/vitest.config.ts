import { defineConfig } from 'vitest/config';

// The real-agent suite: `npm run test:slow`. Each file installs its agent on first use and
// drives it for minutes, so files run one at a time with long timeouts.
export default defineConfig({
  test: {
    include: ['tests/slow/**/*.test.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 15 * 60_000,
    fileParallelism: false,
  },
});
