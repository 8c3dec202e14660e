import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // real agents, minutes each: `npm run test:slow`
    exclude: [...configDefaults.exclude, 'tests/slow/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
