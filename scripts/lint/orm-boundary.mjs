// The ORM stays behind the repositories (docs/architecture.md "Code layout"): in the apps, only
// repositories, entities and migrations import TypeORM or an entity; use cases, services,
// controllers and domain code work with the plain records of the app's domain/ folder.
import tseslint from 'typescript-eslint';

/** Where the ORM may be imported. */
export const ORM_FILES = [
  '**/repositories/**',
  '**/entities/**',
  '**/migrations/**',
  '**/*.repository.ts',
  '**/*.store.ts',
  // The app's module or database options register its entities with the DataSource.
  'apps/*/src/*.module.ts',
  'apps/*/src/*.database.ts',
  // The operator CLI opens the identity DataSource itself (no running app) and accepts one.
  'apps/identity/src/cli/issue-token-for-member.ts',
  // Tests set up and observe through the repositories and entities.
  '**/*.spec.ts',
  '**/*.medium-spec.ts',
  '**/*.e2e-spec.ts',
  'apps/*/test/**',
];

const MESSAGE = 'the ORM stays in repositories, entities and migrations: use the record type of the app\'s domain/ folder (docs/architecture.md "Code layout")';

/** The ESLint config block (eslint.config.mjs uses it; libs/contracts/src/errors/orm-lint.spec.ts runs it on a planted violation). */
export const ormBoundaryConfig = {
  files: ['apps/**/*.ts'],
  ignores: ORM_FILES,
  // The typescript-eslint variant, so that the general no-restricted-imports rule keeps its own
  // options; it refuses `import type` too.
  plugins: { '@typescript-eslint': tseslint.plugin },
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: '^typeorm(/|$)', message: MESSAGE },
          { regex: '(^|/)entities(/|$)', message: MESSAGE },
        ],
      },
    ],
  },
};
