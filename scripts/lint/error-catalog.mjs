// Errors come from the error catalogs (docs/architecture.md "Errors"): outside a catalog
// (`*.errors.ts`, libs/contracts/src/errors*), nothing builds a ServiceError from a text,
// neither `new ServiceError(...)` nor its factories (`ServiceError.notFound('...')`).

/** The code raised from catalogs: every TypeScript file of the apps and libraries (the catalogs excepted, CATALOG_FILES). */
export const CATALOG_ONLY_FILES = ['apps/**/*.ts', 'libs/**/*.ts'];

/** Where errors are defined: the catalogs and ServiceError itself (and its own tests). */
export const CATALOG_FILES = ['**/*.errors.ts', 'libs/contracts/src/errors.ts', 'libs/contracts/src/errors.spec.ts', 'libs/contracts/src/errors/**'];

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
