// Lint: typescript-eslint's type-checked recommended rules, plus the ones that catch real bugs
// here (floating promises, non-exhaustive switches), the app boundaries, and Prettier's format
// (`npm run lint` runs both). Every rule switched off below says why.
import tseslint from 'typescript-eslint';
import boundaries from './scripts/lint/app-boundaries.mjs';
import { errorCatalogConfig } from './scripts/lint/error-catalog.mjs';
import { ormBoundaryConfig } from './scripts/lint/orm-boundary.mjs';
import { handlersConfig } from './scripts/lint/handlers.mjs';
import { rawSqlConfig } from './scripts/lint/raw-sql.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'test-results/**', 'console/src/api/*.gen.ts', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts', 'console/**/*.tsx'],
    extends: [...tseslint.configs.recommendedTypeChecked],
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
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // An async method that implements an async interface without awaiting anything is
      // normal here (adapters, fakes), and `async` turns its throws into rejections, which
      // callers rely on.
      '@typescript-eslint/require-await': 'off',
      // Values read from database rows and parsed input are `unknown`; String() on them is the
      // intended conversion (a wrong column type fails the repository tests, not lint).
      '@typescript-eslint/no-base-to-string': 'off',
      'no-restricted-imports': [
        'error',
        {
          // The exceptions: entry points check the Node.js version before they load any
          // library (a library root imports everything), so they import that module directly;
          // the console's browser bundle takes the one import-free contract module it shares
          // with the gateway (the /health page's up/down rule), not the Node-only root.
          patterns: [
            { group: ['@app/*/src/*'], message: 'import libraries from their root (@app/<lib>)' },
            {
              regex: '(^|/)libs/[^/]+/src/(?!runtime/service-runtime\\.js$|health/part-state$)',
              message: 'import libraries from their root (@app/<lib>)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.medium-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'apps/*/test/**/*.ts'],
    rules: {
      // Tests reach into sources directly (a repository, a driver) to set up and observe.
      'no-restricted-imports': 'off',
      // Tests read JSON answers over HTTP and from the bus, which are untyped by nature; the
      // end-to-end harness checks every such body against the contract's schema instead.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // expect(object.method).toHaveBeenCalled() passes methods unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
      // Test doubles stand in for typed collaborators with partial objects.
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests name the type of an answer they read, even where it could be inferred.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  // No error built from a text outside an error catalog (the converted paths are listed there).
  errorCatalogConfig,
  // In the apps, TypeORM and the entities only in repositories, entities and migrations.
  ormBoundaryConfig,
  // A message or event handler is one statement that delegates to a use case.
  handlersConfig,
  // Raw SQL only through sql() of libs/infra (no query(), no query builders).
  rawSqlConfig,
);
