// Errors come from the error catalogs (docs/architecture.md "Errors"): outside a catalog
// (`*.errors.ts`, libs/contracts/src/errors*), nothing builds a ServiceError from a text,
// neither `new ServiceError(...)` nor its factories (`ServiceError.notFound('...')`).

/**
 * The code already raised from catalogs. Each domain's conversion adds its paths here; once
 * every domain is converted this becomes every TypeScript file.
 */
export const CATALOG_ONLY_FILES = [
  'apps/logdata/**/*.ts',
  'libs/contracts/src/logdata/**/*.ts',
  'apps/registry/**/*.ts',
  'libs/contracts/src/registry/**/*.ts',
  'apps/firmware/**/*.ts',
  'libs/contracts/src/firmware/**/*.ts',
  'libs/contracts/src/tags/**/*.ts',
  'libs/platform/src/uploads/write-once-upload*.ts',
];

/** Where errors are defined: the catalogs and ServiceError itself. */
export const CATALOG_FILES = ['**/*.errors.ts', 'libs/contracts/src/errors.ts', 'libs/contracts/src/errors/**'];

const MESSAGE =
  'raise an error of an error catalog (`throw LogdataErrors.log_file_not_found()`), not a ServiceError built from text: docs/architecture.md "Errors"';

/** The ESLint config block (eslint.config.mjs uses it; libs/contracts/src/errors/error-lint.spec.ts runs it on a planted violation). */
export const errorCatalogConfig = {
  files: CATALOG_ONLY_FILES,
  ignores: CATALOG_FILES,
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: "NewExpression[callee.name='ServiceError']", message: MESSAGE },
      {
        selector: "CallExpression[callee.object.name='ServiceError'][callee.property.name=/^(badRequest|notFound|conflict|forbidden|unavailable)$/]",
        message: MESSAGE,
      },
    ],
  },
};
