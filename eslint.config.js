import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.dependency-cruiser.cjs',
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.offload-demo/**',
      '.compact/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'src/core is pure: take values through options or ports.' },
        ...['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate'].map((name) => ({
          name,
          message: 'src/core has no timers: wait through a Sleep port (src/infrastructure/clock.ts has the real one).',
        })),
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'src/core has no clock: take the time through a `now` port (new Date(value) is fine).',
        },
        {
          selector: "CallExpression[callee.name='Date']",
          message: 'src/core has no clock: take the time through a `now` port.',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'src/core has no clock: take the time through a `now` port.',
        },
      ],
    },
  },
);
