// Lint: the rules that catch real bugs in this code base. Type-aware, so floating promises
// and non-exhaustive switches over unions/enums are errors.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['@app/*/src/*', '**/libs/*/src/*'], message: 'import libraries from their root (@app/<lib>)' }],
          // On Node 20 one AsyncLocalStorage.run (or an async hook) slows every promise of the
          // process for good: about a tenth of the update check's CPU. Pass context explicitly.
          paths: [
            { name: 'node:async_hooks', importNames: ['AsyncLocalStorage', 'createHook'], message: 'no async context in product code: pass the request explicitly (JsonLogger.forRequest)' },
            { name: 'async_hooks', importNames: ['AsyncLocalStorage', 'createHook'], message: 'no async context in product code: pass the request explicitly (JsonLogger.forRequest)' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.medium-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
