import { escapeHtml, pageHead } from '@app/contracts';

/**
 * The error answer of one of the service's pages (/console, /login, /docs, /health) asked for by
 * a browser: a short page that says what happened and what to do, where problem+json would show
 * as raw text. It loads nothing else: a blocked address could load no stylesheet either.
 */
export function errorPage(status: number, reason: string, message: string, addressBlocked: boolean): string {
  const [title, body] = addressBlocked
    ? [
        'Your address is blocked',
        [
          '<h1>Your address is blocked</h1>',
          `<p>This service refuses every request from the address you are using (${status} ${escapeHtml(reason)}: ${escapeHtml(message)}).`,
          'An administrator blocked it, or a network that contains it.</p>',
          '<p>If you are an administrator: another administrator can remove the block from another address (the console’s IP blocks page),',
          'an operator can lift it with the operator CLI on the server, and a block with a lifetime ends by itself. Reload this page once it is gone.</p>',
        ].join('\n'),
      ]
    : [
        `${status} ${reason}`,
        `<h1>${status} ${escapeHtml(reason)}</h1>\n<p>${escapeHtml(message)}</p>\n<p><a href="/console">Console</a> · <a href="/health">Service health</a></p>`,
      ];
  return [...pageHead(title, []), '<body>', '<main>', body, '</main>', '</body>', '</html>', ''].join('\n');
}
