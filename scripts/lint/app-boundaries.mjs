// ESLint rule `boundaries/no-cross-app-imports`: an app never imports another app, and a
// library never imports an app. Apps talk only through the messages and events declared in
// libs/contracts. apps/standalone and apps/cli assemble apps (one process, the operator's
// tools), so they may import them.
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ASSEMBLERS = new Set(['standalone', 'cli']);

function ownerOf(relative) {
  const app = /^apps\/([^/]+)\//.exec(relative);
  if (app) return { kind: 'app', name: app[1] };
  const lib = /^libs\/([^/]+)\//.exec(relative);
  if (lib) return { kind: 'lib', name: lib[1] };
  return undefined;
}

const noCrossAppImports = {
  meta: {
    type: 'problem',
    docs: { description: 'an app imports no other app, a library imports no app' },
    messages: {
      appImportsApp: 'apps/{{from}} must not import apps/{{to}}: apps talk through the messages and events of libs/contracts',
      libImportsApp: 'libs/{{from}} must not import apps/{{to}}: libraries never depend on apps',
    },
    schema: [],
  },
  create(context) {
    const file = path.relative(ROOT, context.filename);
    const owner = ownerOf(file);
    if (!owner || (owner.kind === 'app' && ASSEMBLERS.has(owner.name))) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = ownerOf(path.relative(ROOT, path.resolve(path.dirname(context.filename), source)));
      if (target?.kind !== 'app' || (owner.kind === 'app' && target.name === owner.name)) return;
      context.report({ node, messageId: owner.kind === 'app' ? 'appImportsApp' : 'libImportsApp', data: { from: owner.name, to: target.name } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
    };
  },
};

export default { rules: { 'no-cross-app-imports': noCrossAppImports } };
