// Lint: the rules that catch real bugs in this code base. Type-aware, so floating promises
// and non-exhaustive switches over unions/enums are errors.
import tseslint from 'typescript-eslint';
import boundaries from './scripts/lint/app-boundaries.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { boundaries },
    rules: {
      'boundaries/no-cross-app-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      'no-restricted-imports': [
        'error',
        {
          // The one exception: entry points check the Node.js version before they load any
          // library (a library root imports everything), so they import that module directly.
          patterns: [
            { group: ['@app/*/src/*'], message: 'import libraries from their root (@app/<lib>)' },
            { regex: '(^|/)libs/[^/]+/src/(?!runtime/supported-node\\.js$)', message: 'import libraries from their root (@app/<lib>)' },
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
