import type { ServerResponse } from 'node:http';

/**
 * Headers of every page the gateway serves (console, login, docs, the magic-link page): no
 * inline script or style (scripts and styles come from /assets/), no framing, no referrer to
 * other sites (the magic-link page's URL carries its token), nothing cached.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export function sendHtml(res: ServerResponse, status: number, body: string, head = false, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries({ ...PAGE_HEADERS, ...headers })) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}
