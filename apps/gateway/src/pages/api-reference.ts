import { escapeHtml, type SandboxTokens } from '@app/contracts';
import { PAGE_HEADERS } from './page-headers.js';
import { PAGE_FILE_URLS } from './page-files.js';
import { renderShell } from './page-shell.js';

/**
 * The headers of /docs: the pages' policy, except that images may also be `data:` URLs, which
 * the renderer's stylesheet uses for its icons (images run no code). Scripts and styles still
 * come from this origin only, none inline.
 */
export const API_REFERENCE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_HEADERS['Content-Security-Policy'].replace("img-src 'self'", "img-src 'self' data:"),
};

/**
 * GET /docs: the interactive API reference. Swagger UI renders /openapi.json in the browser
 * (every operation's parameters, bodies, responses, examples, and "Try it out"); around it the
 * server renders how to authenticate and the sandbox's public tokens (`sandbox` null: no
 * sandbox; 'unavailable': identity did not answer).
 */
export function apiReferencePage(info: { title: string; version: string }, sandbox: SandboxTokens | null | 'unavailable', baseUrl: string): string {
  const body = [
    '<section class="intro" aria-labelledby="reference-title">',
    '<h1 id="reference-title">API reference</h1>',
    `<p>${escapeHtml(info.title)}, version ${escapeHtml(info.version)}. The machine-readable description is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1); base address <code>${escapeHtml(baseUrl)}</code>. Whether the service is up: <a href="/health">service health</a>.</p>`,
    '<p>Programs send an API token as <code>Authorization: Bearer &lt;token&gt;</code>: in "Try it out", press <strong>Authorize</strong> and paste a token under <code>bearer</code>. People log in on <a href="/login">the console</a>; their session cookies need the CSRF token (<code>X-CSRF-Token</code>) on every write. Errors are <code>application/problem+json</code>, or one text line on the update check, uploads and log-file transfers.</p>',
    sandboxSection(sandbox),
    '</section>',
    '<noscript><p class="error">The interactive reference needs JavaScript. Without it, read <a href="/openapi.json">/openapi.json</a>.</p></noscript>',
    '<p id="reference-status" role="status">Loading the API reference…</p>',
    '<div id="api-reference"></div>',
  ];
  return renderShell({
    title: `${info.title}: API reference`,
    stylesheets: [PAGE_FILE_URLS.swaggerUiCss, PAGE_FILE_URLS.apiReferenceCss],
    scripts: [PAGE_FILE_URLS.swaggerUiJs, PAGE_FILE_URLS.apiReferenceJs],
    body: body.filter(Boolean).join('\n'),
    contentLandmark: 'none',
  });
}

function sandboxSection(sandbox: SandboxTokens | null | 'unavailable'): string {
  if (sandbox === null) return '';
  if (sandbox === 'unavailable') return '<section id="sandbox"><h2>Sandbox</h2><p class="error">The sandbox tokens cannot be shown right now.</p></section>';
  const rows = sandbox.tokens.map(
    (t) =>
      `<tr><td>${escapeHtml(t.bundle)}</td><td>${escapeHtml(t.scopes.join(' '))}</td><td>${escapeHtml(t.expires_at)}</td><td><details><summary>Show token</summary><code class="token" data-bundle="${escapeHtml(t.bundle)}">${escapeHtml(t.token)}</code></details></td>` +
      `<td><button type="button" hidden data-use-token="${escapeHtml(t.token)}" data-bundle="${escapeHtml(t.bundle)}">Use in Try it out<span class="visually-hidden"> (${escapeHtml(t.bundle)})</span></button></td></tr>`,
  );
  return [
    '<section id="sandbox" aria-labelledby="sandbox-title">',
    '<h2 id="sandbox-title">Sandbox</h2>',
    `<p>Try the API on the sandbox customer <code>${escapeHtml(sandbox.domain)}</code> with these public tokens. Everyone can use them: store nothing private there. In the sandbox log files are limited to 256 KiB, and the administrator API, token and member management are not available.</p>`,
    '<p>To use one in "Try it out", press its <strong>Use in Try it out</strong> button (or copy it into <strong>Authorize</strong>, <code>bearer</code>), open an operation, press <strong>Try it out</strong>, then <strong>Execute</strong>.</p>',
    '<table><thead><tr><th scope="col">Bundle</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col">Token</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
    '</section>',
  ].join('\n');
}
