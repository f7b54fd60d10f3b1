import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The lint rule as eslint.config.mjs applies it (scripts/lint/handlers.mjs), on its own: no type information needed. */
async function lint(code: string, filePath: string): Promise<string[]> {
  const { handlersConfig } = (await import(pathToFileURL(path.join(ROOT, 'scripts/lint/handlers.mjs')).href)) as { handlersConfig: Linter.Config };
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } }, handlersConfig],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

const controller = (body: string) =>
  [
    "import { Controller } from '@nestjs/common';",
    "import { EventPattern, MessagePattern } from '@nestjs/microservices';",
    '@Controller()',
    'export class X {',
    "  @MessagePattern('x.list')",
    `  async list(): Promise<unknown> {\n${body}\n  }`,
    "  @EventPattern('x.seen')",
    '  seen(): void {}',
    '  helper(): number {\n    const a = 1;\n    return a;\n  }',
    '}',
  ].join('\n');

describe('lint: a message handler is one statement', () => {
  it('refuses a handler that does the work itself, and an empty one', async () => {
    const messages = await lint(
      controller('    const rows = await this.repo.list();\n    return rows.map(String);'),
      'apps/identity/src/controllers/x.controller.ts',
    );
    expect(messages).toEqual([
      'handlers/one-statement: a handler is one statement that delegates to a use case (2 here): move the flow into use-cases/<verb-noun>/',
      'handlers/one-statement: a handler is one statement that delegates to a use case (0 here): move the flow into use-cases/<verb-noun>/',
    ]);
  });

  it('takes a handler that hands the call to a use case, and leaves undecorated methods alone', async () => {
    const messages = await lint(controller('    return this.listUseCase.execute();'), 'apps/identity/src/controllers/x.controller.ts');
    expect(messages).toEqual([
      'handlers/one-statement: a handler is one statement that delegates to a use case (0 here): move the flow into use-cases/<verb-noun>/',
    ]);
  });
});
