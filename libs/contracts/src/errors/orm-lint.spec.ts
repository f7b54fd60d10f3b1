import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** The lint rule as eslint.config.mjs applies it (scripts/lint/orm-boundary.mjs), on its own: no type information needed. */
async function lint(code: string, filePath: string): Promise<string[]> {
  const { ormBoundaryConfig } = (await import(pathToFileURL(path.join(ROOT, 'scripts/lint/orm-boundary.mjs')).href)) as { ormBoundaryConfig: Linter.Config };
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } }, ormBoundaryConfig],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('lint: the ORM stays in repositories, entities and migrations', () => {
  const planted = "import type { BuildEntity } from '../../entities/build.entity.js';\nexport type B = BuildEntity;";

  it('refuses an entity import in a use case, even a type-only one', async () => {
    const messages = await lint(planted, 'apps/firmware/src/use-cases/read-build/x.usecase.ts');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^@typescript-eslint\/no-restricted-imports: .*the ORM stays in repositories/);
  });

  it('refuses TypeORM in a service', async () => {
    const messages = await lint("import type { DataSource } from 'typeorm';\nexport type D = DataSource;", 'apps/identity/src/services/x.service.ts');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^@typescript-eslint\/no-restricted-imports: /);
  });

  it('allows it in a repository', async () => {
    expect(await lint(planted, 'apps/firmware/src/repositories/x.repository.ts')).toEqual([]);
  });
});
