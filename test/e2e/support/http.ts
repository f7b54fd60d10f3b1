import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { CSRF_FIELD, CSRF_HEADER, SESSION_COOKIES } from '@app/contracts';
import { checkReplyAgainstContract, registerService } from './contract.js';

/**
 * A small HTTP client for the suite, on node:http (no connection reuse, redirects never
 * followed unless asked, HEAD without a body, every Set-Cookie kept, optional local source
 * address), with the service's credentials: Bearer tokens and console sessions (the three
 * cookies plus the CSRF token, by header or `csrf` query parameter). Every JSON reply of the
 * service is checked against the schema its /openapi.json declares (./contract.ts).
 */

export interface IdentityBody {
  admin: string;
  csrf_token: string;
  customer: string;
  email: string;
  memberships: { domain: string; role: string }[];
  role: string;
  scopes: string[];
}

/** A console session: the cookie jar of one person plus the CSRF token from /auth/verify. */
export class Session {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly email: string,
    public csrfToken: string,
    public identity: IdentityBody,
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Takes the cookies of a response (a Max-Age=0 cookie removes it). */
  absorb(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const cookie = parseSetCookie(line);
      if (!cookie) continue;
      if (cookie.attributes['max-age'] === '0' || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }

  hasAllCookies(): boolean {
    return Object.values(SESSION_COOKIES).every((name) => this.cookies.has(name));
  }
}

export interface ParsedSetCookie {
  name: string;
  value: string;
  /** Attribute names in lower case; flags map to ''. */
  attributes: Record<string, string>;
  /** Attribute tokens as sent (e.g. `Path=/`, `HttpOnly`). */
  raw: string[];
}

export function parseSetCookie(line: string): ParsedSetCookie | null {
  const [pair, ...attrs] = line.split(';').map((s) => s.trim());
  const eq = pair?.indexOf('=') ?? -1;
  if (!pair || eq <= 0) return null;
  const attributes: Record<string, string> = {};
  for (const a of attrs) {
    const i = a.indexOf('=');
    attributes[(i === -1 ? a : a.slice(0, i)).toLowerCase()] = i === -1 ? '' : a.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes, raw: attrs };
}

/** Credentials of a request. A string is a Bearer token. */
export type Auth = string | { readonly bearer: string } | { readonly authorization: string } | Session;

export type CsrfMode = 'header' | 'query' | 'none' | { readonly value: string; readonly in?: 'header' | 'query' };

export interface RequestOptions {
  readonly auth?: Auth;
  readonly query?: Record<string, string | number | boolean | undefined>;
  readonly headers?: Record<string, string>;
  /** A JSON body (Content-Type application/json). */
  readonly json?: unknown;
  /** A raw body (sent with Content-Length unless `chunked`). */
  readonly body?: Buffer | string;
  /** Send `Accept: application/json`. */
  readonly acceptJson?: boolean;
  /** For sessions on POST/PUT/PATCH/DELETE: how to send the CSRF token (default header). */
  readonly csrf?: CsrfMode;
  /** Bind the client socket to this local address (e.g. 127.0.0.5: a distinct client IP). */
  readonly localAddress?: string;
  readonly timeoutMs?: number;
}

export class HttpReply {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly rawHeaders: IncomingHttpHeaders,
    readonly body: Buffer,
    readonly elapsedMs: number,
  ) {}

  header(name: string): string | null {
    const value = this.rawHeaders[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }

  get setCookies(): string[] {
    return this.rawHeaders['set-cookie'] ?? [];
  }

  get text(): string {
    return this.body.toString('utf8');
  }

  get contentType(): string | null {
    return this.header('content-type');
  }

  json<T = any>(): T {
    try {
      return JSON.parse(this.text) as T;
    } catch {
      throw new Error(`${this.method} ${this.url} answered ${this.status} with a body that is not JSON: ${this.text.slice(0, 500)}`);
    }
  }

  /** One line for failure messages. */
  describe(): string {
    return `${this.method} ${this.url} -> ${this.status} ${this.contentType ?? ''} ${this.text.slice(0, 400)}`;
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class HttpClient {
  constructor(readonly baseUrl: string) {
    registerService(baseUrl);
  }

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(path.startsWith('http') ? path : `${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  get(path: string, options: RequestOptions = {}): Promise<HttpReply> {
    return this.request('GET', path, options);
  }
  head(path: string, options: RequestOptions = {}): Promise<HttpReply> {
    return this.request('HEAD', path, options);
  }
  post(path: string, options: RequestOptions = {}): Promise<HttpReply> {
    return this.request('POST', path, options);
  }
  put(path: string, options: RequestOptions = {}): Promise<HttpReply> {
    return this.request('PUT', path, options);
  }
  delete(path: string, options: RequestOptions = {}): Promise<HttpReply> {
    return this.request('DELETE', path, options);
  }
  patch(path: string, options: RequestOptions = {}): Promise<HttpReply> {
    return this.request('PATCH', path, options);
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpReply> {
    const headers: OutgoingHttpHeaders = { 'user-agent': 'fds-e2e', ...lower(options.headers ?? {}) };
    const query = { ...(options.query ?? {}) };
    const auth = options.auth;
    if (typeof auth === 'string') headers.authorization = `Bearer ${auth}`;
    else if (auth instanceof Session) {
      headers.cookie = auth.cookieHeader();
      if (UNSAFE.has(method)) {
        const mode = options.csrf ?? 'header';
        if (mode === 'header') headers[CSRF_HEADER] = auth.csrfToken;
        else if (mode === 'query') query[CSRF_FIELD] = auth.csrfToken;
        else if (typeof mode === 'object') {
          if (mode.in === 'query') query[CSRF_FIELD] = mode.value;
          else headers[CSRF_HEADER] = mode.value;
        }
      }
    } else if (auth && 'bearer' in auth) headers.authorization = `Bearer ${auth.bearer}`;
    else if (auth && 'authorization' in auth) headers.authorization = auth.authorization;
    if (options.acceptJson) headers.accept = 'application/json';
    let body: Buffer | undefined;
    if (options.json !== undefined) {
      body = Buffer.from(JSON.stringify(options.json));
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    }
    if (body !== undefined) headers['content-length'] = String(body.length);
    const url = this.url(path, query);
    const reply = await send(method, url, headers, body, options);
    if (auth instanceof Session && reply.setCookies.length) auth.absorb(reply.setCookies);
    return reply;
  }

  /**
   * Follows redirects from `url` (a /dl link, a pre-signed object-store URL), sending the
   * same Range header on every hop. Answers the last reply and the chain of statuses.
   */
  async follow(
    url: string,
    options: { method?: 'GET' | 'HEAD'; range?: string; localAddress?: string; maxHops?: number } = {},
  ): Promise<{ reply: HttpReply; hops: HttpReply[] }> {
    const hops: HttpReply[] = [];
    let current = url;
    for (let i = 0; i <= (options.maxHops ?? 4); i++) {
      const headers: OutgoingHttpHeaders = { 'user-agent': 'fds-e2e' };
      if (options.range) headers.range = options.range;
      const reply = await send(options.method ?? 'GET', this.url(current), headers, undefined, { localAddress: options.localAddress });
      hops.push(reply);
      const location = reply.header('location');
      if (reply.status >= 300 && reply.status < 400 && location) {
        current = new URL(location, reply.url).toString();
        continue;
      }
      return { reply, hops };
    }
    throw new Error(`too many redirects from ${url}: ${hops.map((h) => h.status).join(' -> ')}`);
  }
}

function lower(headers: Record<string, string>): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** One request, its reply checked against the contract when it comes from the service. */
async function send(
  method: string,
  url: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  options: { localAddress?: string; timeoutMs?: number },
): Promise<HttpReply> {
  const reply = await sendUnchecked(method, url, headers, body, options);
  await checkReplyAgainstContract(reply);
  return reply;
}

function sendUnchecked(
  method: string,
  url: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  options: { localAddress?: string; timeoutMs?: number },
): Promise<HttpReply> {
  const started = Date.now();
  return new Promise<HttpReply>((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false, localAddress: options.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve(new HttpReply(method, url, res.statusCode ?? 0, res.headers, Buffer.concat(chunks), Date.now() - started)));
    });
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error(`${method} ${url}: no answer within ${options.timeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A request whose body is produced by `chunks` and sent as it comes (chunked transfer
 * encoding unless `declaredLength` is given, in which case that Content-Length is sent
 * whatever the body). Resolves with the response as soon as the server answers, even in
 * the middle of the upload (the rest of the body is then abandoned).
 */
export async function streamingRequest(
  method: string,
  url: string,
  options: { headers?: Record<string, string>; chunks: AsyncIterable<Buffer> | Iterable<Buffer>; declaredLength?: number; timeoutMs?: number },
): Promise<HttpReply> {
  const reply = await streamingRequestUnchecked(method, url, options);
  await checkReplyAgainstContract(reply);
  return reply;
}

function streamingRequestUnchecked(
  method: string,
  url: string,
  options: { headers?: Record<string, string>; chunks: AsyncIterable<Buffer> | Iterable<Buffer>; declaredLength?: number; timeoutMs?: number },
): Promise<HttpReply> {
  const started = Date.now();
  const headers: OutgoingHttpHeaders = { 'user-agent': 'fds-e2e', ...lower(options.headers ?? {}) };
  if (options.declaredLength !== undefined) headers['content-length'] = String(options.declaredLength);
  else headers['transfer-encoding'] = 'chunked';
  return new Promise<HttpReply>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        resolve(new HttpReply(method, url, res.statusCode ?? 0, res.headers, Buffer.concat(chunks), Date.now() - started));
        req.destroy();
      });
    });
    req.setTimeout(options.timeoutMs ?? 60_000, () => req.destroy(new Error(`${method} ${url}: no answer within ${options.timeoutMs ?? 60_000} ms`)));
    req.on('error', (err) => {
      // The server may close the connection after answering an oversized upload early.
      if (!answered) reject(err);
    });
    req.flushHeaders();
    void (async () => {
      try {
        for await (const chunk of options.chunks) {
          if (answered || req.destroyed) return;
          if (!req.write(chunk))
            await new Promise<void>((r) => {
              const done = () => {
                req.off('drain', done);
                req.off('close', done);
                r();
              };
              req.on('drain', done);
              req.on('close', done);
            });
        }
        if (!answered && !req.destroyed && options.declaredLength === undefined) req.end();
      } catch (err) {
        req.destroy(err as Error);
      }
    })();
  });
}

/** problem+json's `type`: the entry of its code on the service's /docs/errors page (docs/api.md "Limits and errors"). */
export const PROBLEM_TYPE = /^https?:\/\/[^/]+\/docs\/errors#[a-z][a-z0-9_]*$/;
