import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** The lint rule as eslint.config.mjs applies it (scripts/lint/raw-sql.mjs), on its own: no type information needed. */
async function lint(code: string, filePath: string): Promise<string[]> {
  const { rawSqlConfig } = (await import(pathToFileURL(path.join(ROOT, 'scripts/lint/raw-sql.mjs')).href)) as { rawSqlConfig: Linter.Config };
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } }, rawSqlConfig],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('lint: raw SQL runs one way, sql() of libs/infra', () => {
  const repository = 'apps/logdata/src/repositories/x.repository.ts';

  it("refuses an EntityManager's own query()", async () => {
    const messages = await lint('export async function f(manager: any) { return manager.query(`SELECT 1`); }', repository);
    expect(messages).toEqual([expect.stringMatching(/^raw-sql\/one-way: raw SQL runs one way: .*not manager\.query\(\)/)]);
  });

  it("refuses a DataSource's query() on a property and in a transaction callback", async () => {
    const code =
      'export class R { constructor(private readonly dataSource: any) {}\n  a() { return this.dataSource.query(`SELECT 1`); }\n  b() { return this.dataSource.transaction((m: any) => m.query(`SELECT 1`)); } }';
    expect(await lint(code, 'libs/platform/src/x.ts')).toHaveLength(2);
  });

  it('refuses a query builder and the retired result helpers', async () => {
    const code =
      "import { rowsOf, affectedOf } from '@app/infra';\nexport const q = (repo: any) => repo.createQueryBuilder('f').where('f.a = :a', { a: 1 }).getMany();";
    const messages = await lint(code, repository);
    expect(messages).toHaveLength(3);
    expect(messages.filter((m) => m.includes('query builder'))).toHaveLength(1);
  });

  it('allows sql(), a migration and the runner itself', async () => {
    expect(await lint("import { sql } from '@app/infra';\nexport const f = (manager: any) => sql(manager, `SELECT 1`);", repository)).toEqual([]);
    expect(await lint('export const up = (queryRunner: any) => queryRunner.query(`SELECT 1`);', 'apps/admin/src/migrations/1-x.ts')).toEqual([]);
    expect(await lint('export const f = (manager: any) => manager.query(`SELECT 1`);', 'libs/infra/src/database/x.ts')).toEqual([]);
  });
});
