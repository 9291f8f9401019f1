// The linter's rules and why each departs from typescript-eslint's type-checked set: docs/style.md, "Lint".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.ci/cache/',
      'test-artifacts/',
      'data/',
      'certs/',
      'packages/',
      'coverage/',
      'reports/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './src/ui/page/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // From the strict set: a switch over a state or a kind that misses one fails here, not at a customer.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // An aborted wait passes on the reason its aborter gave, whatever it is.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Destructuring a field away (card data out of a row) names it without using it.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
      // An async function without await still turns its throw into a rejection, which is what
      // callers of a promise-returning interface (a device, a platform stand-in) expect.
      '@typescript-eslint/require-await': 'off',
      // A timer handle declared before the closures that clear it and assigned after them.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The compiler already knows every name; ESLint's own check does not know TypeScript's or the DOM's.
    files: ['**/*.ts'],
    rules: { 'no-undef': 'off' },
  },
  {
    // Benches and chaos runs wrap live methods to time or break them, then call the originals bound.
    files: ['scripts/**/*.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off', '@typescript-eslint/no-this-alias': 'off' },
  },
  {
    // Tests read JSON answers (typed any) whose shapes they assert in the next line.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests replace and spy on live methods, then call the originals bound.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // Injected into the page by the layout check; it runs in Chromium, not in Node. The file is
    // one function expression, read as text and called there.
    files: ['**/*.browser.js'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
    languageOptions: {
      globals: {
        document: 'readonly',
        getComputedStyle: 'readonly',
        DOMRect: 'readonly',
        HTMLElement: 'readonly',
        HTMLLabelElement: 'readonly',
        Node: 'readonly',
      },
    },
  },
);
