import { allCatalogedErrors, declaredErrorsOf, type EndpointDef, escapeHtml, pageHead } from '@app/contracts';

/**
 * /docs/errors: every code of every error catalog, where problem+json's `type` points
 * (`<PUBLIC_URL>/docs/errors#<code>`): its status, its message (or the pattern, `{name}` for a
 * part that varies) and the operations that declare it; the common codes any endpoint may
 * answer as its shape implies. Derived from the catalogs and the endpoint declarations only.
 */
export function errorCodesPage(endpoints: readonly EndpointDef[]): string {
  const raisedBy = new Map<string, string[]>();
  for (const endpoint of endpoints) {
    for (const error of declaredErrorsOf(endpoint)) raisedBy.set(error.code, [...(raisedBy.get(error.code) ?? []), `${endpoint.method} ${endpoint.path}`]);
  }
  const rows = allCatalogedErrors().map((error) => {
    const where =
      error.domain === 'common' || error.domain === 'gateway'
        ? ['any endpoint, as its inputs, credentials and limits imply']
        : (raisedBy.get(error.code) ?? []);
    return row(error.code, error.status, error.domain, error.pattern, where);
  });
  const body = [
    '<h1>Error codes</h1>',
    '<p>Every error answered as <code>application/problem+json</code> carries <code>code</code>, one of the codes below, and',
    '<code>type</code>, the link to its entry here. Match on <code>code</code>: the <code>detail</code> text is for people.',
    'A <code>{name}</code> in a message stands for a part that varies. See also the <a href="/docs">API reference</a>.</p>',
    '<table>',
    '<thead><tr><th>Code</th><th>Status</th><th>Area</th><th>Message</th><th>Answered by</th></tr></thead>',
    '<tbody>',
    ...rows,
    '</tbody>',
    '</table>',
  ].join('\n');
  return [...pageHead('Error codes', []), '<body>', '<main>', body, '</main>', '</body>', '</html>', ''].join('\n');
}

function row(code: string, status: number, domain: string, message: string, where: readonly string[]): string {
  const cells = [`<code>${escapeHtml(code)}</code>`, String(status), escapeHtml(domain), escapeHtml(message), where.map(escapeHtml).join('<br>') || '—'];
  return `<tr id="${escapeHtml(code)}">${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
}
