import { escapeHtml, renderPage, type SandboxTokens } from '@app/contracts';

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  readonly access: string;
}

type OpenApiDocument = {
  info: { title: string; version: string };
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, { tags?: string[]; summary?: string; security?: Array<Record<string, unknown>>; 'x-scope'?: string }>>;
};

function operations(document: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const security = operation.security ?? [];
      const access = operation['x-scope']
        ? `scope ${operation['x-scope']}`
        : security.length === 0
          ? 'public'
          : security.some((s) => 'metrics' in s)
            ? 'metrics token or administrator'
            : 'token or session';
      out.push({ method: method.toUpperCase(), path, summary: operation.summary ?? '', tag: operation.tags?.[0] ?? 'Other', access });
    }
  }
  return out;
}

/**
 * GET /docs: the operations of /openapi.json grouped by area tag, and the sandbox's public
 * tokens when SANDBOX_DOMAIN is set (`sandbox` null: none; 'unavailable': identity did not answer).
 */
export function docsPage(document: OpenApiDocument, sandbox: SandboxTokens | null | 'unavailable', baseUrl: string): string {
  const all = operations(document);
  const sections: string[] = [];
  for (const tag of document.tags) {
    const ops = all.filter((o) => o.tag === tag.name);
    if (!ops.length) continue;
    sections.push(
      `<section id="tag-${escapeHtml(tag.name.toLowerCase().replace(/\s+/g, '-'))}">`,
      `<h2>${escapeHtml(tag.name)}</h2>`,
      tag.description ? `<p class="hint">${escapeHtml(tag.description)}</p>` : '',
      '<table><thead><tr><th>Operation</th><th>What it does</th><th>Access</th></tr></thead><tbody>',
      ...ops.map(
        (o) =>
          `<tr><td><span class="method">${escapeHtml(o.method)}</span> <code>${escapeHtml(o.path)}</code></td><td>${escapeHtml(o.summary)}</td><td>${escapeHtml(o.access)}</td></tr>`,
      ),
      '</tbody></table>',
      '</section>',
    );
  }
  return renderPage({
    title: `${document.info.title}: documentation`,
    page: 'docs',
    body: [
      `<h1>API documentation</h1>`,
      `<p>${escapeHtml(document.info.title)}, version ${escapeHtml(document.info.version)}. The machine-readable description is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1); base address <code>${escapeHtml(baseUrl)}</code>.</p>`,
      '<p>Programs send an API token as <code>Authorization: Bearer &lt;token&gt;</code>. People log in on <a href="/login">the console</a>; their session cookies need the CSRF token (<code>X-CSRF-Token</code>) on every write. Errors are <code>application/problem+json</code>, or one text line on the update check, uploads and log-file transfers.</p>',
      sandboxSection(sandbox),
      ...sections,
    ].join('\n'),
  });
}

function sandboxSection(sandbox: SandboxTokens | null | 'unavailable'): string {
  if (sandbox === null) return '';
  if (sandbox === 'unavailable') return '<section id="sandbox"><h2>Sandbox</h2><p class="error">The sandbox tokens cannot be shown right now.</p></section>';
  const rows = sandbox.tokens.map(
    (t) =>
      `<tr><td>${escapeHtml(t.bundle)}</td><td>${escapeHtml(t.scopes.join(' '))}</td><td>${escapeHtml(t.expires_at)}</td><td><code class="token" data-bundle="${escapeHtml(t.bundle)}">${escapeHtml(t.token)}</code></td></tr>`,
  );
  return [
    '<section id="sandbox">',
    '<h2>Sandbox</h2>',
    `<p>Try the API on the sandbox customer <code>${escapeHtml(sandbox.domain)}</code> with these public tokens. Everyone can use them: store nothing private there. In the sandbox log files are limited to 256 KiB, and the administrator API, token and member management are not available.</p>`,
    '<table><thead><tr><th>Bundle</th><th>Scopes</th><th>Expires</th><th>Token</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
    '</section>',
  ].join('\n');
}
