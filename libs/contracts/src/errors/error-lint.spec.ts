import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** The lint rule as eslint.config.mjs applies it (scripts/lint/error-catalog.mjs), on its own: no type information needed. */
async function lint(code: string, filePath: string): Promise<string[]> {
  const { errorCatalogConfig } = (await import(pathToFileURL(path.join(ROOT, 'scripts/lint/error-catalog.mjs')).href)) as { errorCatalogConfig: Linter.Config };
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } }, errorCatalogConfig],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('lint: errors come from the catalogs', () => {
  const planted = [
    "import { ErrorCode, ServiceError } from '@app/contracts';",
    "export const a = () => new ServiceError(ErrorCode.NotFound, 'log file not found');",
    'export const b = (n: number) => ServiceError.badRequest(`at most ${n}`);',
    'export const c = (e: unknown) => ServiceError.is(e) || ServiceError.fromSerialized(e);',
  ].join('\n');

  it('refuses a ServiceError built from text in a converted app', async () => {
    const messages = await lint(planted, 'apps/logdata/src/x.ts');
    expect(messages).toHaveLength(2);
    for (const message of messages) expect(message).toMatch(/^no-restricted-syntax: raise an error of an error catalog/);
  });

  it('allows it in a catalog', async () => {
    expect(await lint(planted, 'libs/contracts/src/logdata/logdata.errors.ts')).toEqual([]);
  });
});
