// ESLint rule `raw-sql/one-way`: raw SQL runs one way, `sql(this.manager, text, params)` of
// libs/infra/src/database/sql-runner.ts in a repository (docs/architecture.md "Code layout").
// Refused: a DataSource's or an EntityManager's own `query()`, TypeORM query builders (their
// SQL fragments are raw SQL by another name), and the helpers that unpicked `query()` results
// (`rowsOf`, `affectedOf`).

/** Names of what holds a connection: `dataSource.query(...)`, `this.manager.query(...)`, `m.query(...)` in a transaction callback. */
const EXECUTOR_NAME = /(^|[a-z])(dataSource|DataSource|manager|Manager|connection|Connection)$|^(m|em|tx|trx)$/;
const RETIRED_HELPERS = new Set(['rowsOf', 'affectedOf']);

function nameOf(node) {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') return node.property.name;
  return undefined;
}

const oneWay = {
  meta: {
    type: 'problem',
    docs: { description: 'raw SQL runs through sql() of libs/infra/src/database/sql-runner.ts' },
    messages: {
      query: 'raw SQL runs one way: sql(this.manager, text, params) from @app/infra, not {{name}}.query() (docs/architecture.md "Code layout")',
      builder: 'raw SQL runs one way: sql(this.manager, text, params) from @app/infra, not a query builder (docs/architecture.md "Code layout")',
      helper: '{{name}} unpicks query() results: sql() answers { rows, affected } (docs/architecture.md "Code layout")',
    },
    schema: [],
  },
  create(context) {
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return;
        if (callee.property.name === 'createQueryBuilder') {
          context.report({ node, messageId: 'builder' });
          return;
        }
        const holder = nameOf(callee.object);
        if (callee.property.name === 'query' && holder && EXECUTOR_NAME.test(holder)) context.report({ node, messageId: 'query', data: { name: holder } });
      },
      ImportSpecifier(node) {
        const name = node.imported.type === 'Identifier' ? node.imported.name : node.imported.value;
        if (RETIRED_HELPERS.has(name)) context.report({ node, messageId: 'helper', data: { name } });
      },
    };
  },
};

export const rawSqlPlugin = { rules: { 'one-way': oneWay } };

/**
 * Files still being converted by the owners of their apps (each conversion removes its line).
 * Nothing else may join this list.
 */
export const RAW_SQL_PENDING = [];

/** The ESLint config block (eslint.config.mjs uses it; libs/contracts/src/errors/raw-sql-lint.spec.ts runs it on a planted violation). */
export const rawSqlConfig = {
  files: ['apps/**/*.ts', 'libs/**/*.ts'],
  ignores: [
    // TypeORM's migration API is queryRunner.query().
    '**/migrations/**',
    // The runner itself and the drivers below it.
    'libs/infra/src/database/**',
    '**/*.spec.ts',
    'apps/*/test/**',
    ...RAW_SQL_PENDING,
  ],
  plugins: { 'raw-sql': rawSqlPlugin },
  rules: { 'raw-sql/one-way': 'error' },
};
