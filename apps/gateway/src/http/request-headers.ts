import type { IncomingMessage } from 'node:http';

/** The first value of a request header. */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The User-Agent as logged and passed on: at most 512 characters. */
export function userAgentOf(req: IncomingMessage): string {
  return (headerValue(req, 'user-agent') ?? '').slice(0, 512);
}

/** The headers an endpoint forwards to its app, those the request sent. */
export function pickHeaders(req: IncomingMessage, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headerValue(req, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The path of a request URL, without its query. */
export function pathOf(rawUrl: string): string {
  const queryAt = rawUrl.indexOf('?');
  return queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
}
