// ESLint rule `handlers/one-statement`: a message or event handler (a method decorated with
// @MessagePattern or @EventPattern) is one statement that hands the call to a use case
// (docs/architecture.md "Code layout"): what a flow does lives in the use case, where it is
// tested without the transport.

const HANDLER_DECORATORS = new Set(['MessagePattern', 'EventPattern']);

function decoratorName(decorator) {
  const expression = decorator.expression;
  if (expression.type === 'CallExpression' && expression.callee.type === 'Identifier') return expression.callee.name;
  return expression.type === 'Identifier' ? expression.name : undefined;
}

const oneStatement = {
  meta: {
    type: 'suggestion',
    docs: { description: 'a message or event handler is one statement that delegates to a use case' },
    messages: { tooLong: 'a handler is one statement that delegates to a use case ({{count}} here): move the flow into use-cases/<verb-noun>/' },
    schema: [],
  },
  create(context) {
    return {
      MethodDefinition(node) {
        if (!(node.decorators ?? []).some((d) => HANDLER_DECORATORS.has(decoratorName(d)))) return;
        const count = node.value.body?.body.length ?? 0;
        if (count !== 1) context.report({ node: node.key, messageId: 'tooLong', data: { count: String(count) } });
      },
    };
  },
};

export const handlersPlugin = { rules: { 'one-statement': oneStatement } };

/** The ESLint config block (eslint.config.mjs uses it; scripts/lint's spec runs it on a planted violation). */
export const handlersConfig = {
  files: ['apps/**/*.ts', 'libs/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  plugins: { handlers: handlersPlugin },
  rules: { 'handlers/one-statement': 'error' },
};
