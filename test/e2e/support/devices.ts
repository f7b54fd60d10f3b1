import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { HttpReply } from './http.js';
import { checkReplyAgainstContract, registerService } from './contract.js';

/**
 * The device API for the suite. Requests are sent with their path exactly as written (node:http
 * `path`, no URL parsing), because WHATWG URL parsing (fetch, `new URL`) would resolve `.` and
 * `..` segments, also when written `%2E`: a device named `..` is only reachable that way.
 */

export const HWID_RULE = 'hwid must be 1 to 64 printable ASCII characters (0x21-0x7E, no spaces)';
export const TAG_RULE = 'tag must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$';

export interface DeviceRecord {
  hwid: string;
  status: 'active' | 'withdrawn';
  tags: string[];
  attributes: Record<string, unknown>;
  keys: string[];
  has_keys: boolean;
  created_at: string;
  updated_at: string;
  last_seen_at: string | null;
  last_fw_version: string | null;
}

export interface ImportResultBody {
  created: number;
  updated: number;
  unchanged: number;
  errors: { line: number; hwid: string | null; error: string }[];
  error_count: number;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RawOptions {
  readonly auth?: string;
  readonly query?: Query;
  readonly json?: unknown;
  readonly body?: Buffer | string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

/** One path segment: every character but the unreserved ones (A-Z a-z 0-9 - . _ ~) percent-encoded. */
export function segment(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function queryString(query: Query | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) search.append(name, item);
    else search.append(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A request with the path sent exactly as given; the reply is checked against the contract (./contract.ts). */
export async function rawRequest(baseUrl: string, method: string, path: string, options: RawOptions = {}): Promise<HttpReply> {
  registerService(baseUrl);
  const reply = await rawRequestUnchecked(baseUrl, method, path, options);
  await checkReplyAgainstContract(reply);
  return reply;
}

function rawRequestUnchecked(baseUrl: string, method: string, path: string, options: RawOptions): Promise<HttpReply> {
  const base = new URL(baseUrl);
  const headers: OutgoingHttpHeaders = { 'user-agent': 'fds-e2e', ...(options.headers ?? {}) };
  if (options.auth) headers.authorization = `Bearer ${options.auth}`;
  let body: Buffer | undefined;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json));
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.body !== undefined) {
    body = Buffer.from(options.body);
    if (options.contentType) headers['content-type'] = options.contentType;
  }
  if (body) headers['content-length'] = String(body.length);
  const fullPath = path + queryString(options.query);
  const started = Date.now();
  return new Promise<HttpReply>((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, method, path: fullPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve(new HttpReply(method, `${baseUrl}${fullPath}`, res.statusCode ?? 0, res.headers, Buffer.concat(chunks), Date.now() - started)),
      );
    });
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${fullPath}: no answer within 120 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The device endpoints of one runtime, for one credential (and optionally `customer=`). */
export class DeviceApi {
  constructor(
    private readonly baseUrl: string,
    private readonly auth: string | undefined,
    private readonly customer?: string,
  ) {}

  as(auth: string | undefined, customer?: string): DeviceApi {
    return new DeviceApi(this.baseUrl, auth, customer);
  }

  private send(method: string, path: string, options: Omit<RawOptions, 'auth'> = {}): Promise<HttpReply> {
    const query = { ...(this.customer ? { customer: this.customer } : {}), ...(options.query ?? {}) };
    return rawRequest(this.baseUrl, method, path, { ...options, auth: this.auth, query });
  }

  /** `/devices/<hwid>` with the HW id percent-encoded, or given raw (already encoded) with `{ raw }`. */
  path(hwid: string | { raw: string }, suffix = ''): string {
    return `/devices/${typeof hwid === 'string' ? segment(hwid) : hwid.raw}${suffix}`;
  }

  list(query: Query = {}) {
    return this.send('GET', '/devices', { query });
  }
  create(body: unknown) {
    return this.send('POST', '/devices', { json: body });
  }
  get(hwid: string | { raw: string }) {
    return this.send('GET', this.path(hwid));
  }
  update(hwid: string | { raw: string }, body: unknown) {
    return this.send('PATCH', this.path(hwid), { json: body });
  }
  withdraw(hwid: string | { raw: string }) {
    return this.send('POST', this.path(hwid, '/withdraw'));
  }
  reactivate(hwid: string | { raw: string }) {
    return this.send('POST', this.path(hwid, '/reactivate'));
  }
  tags(hwid: string | { raw: string }) {
    return this.send('GET', this.path(hwid, '/tags'));
  }
  putTags(hwid: string | { raw: string }, body: unknown) {
    return this.send('PUT', this.path(hwid, '/tags'), { json: body });
  }
  addTag(hwid: string | { raw: string }, tag: string | { raw: string }) {
    return this.send('PUT', this.path(hwid, `/tags/${typeof tag === 'string' ? segment(tag) : tag.raw}`));
  }
  removeTag(hwid: string | { raw: string }, tag: string | { raw: string }) {
    return this.send('DELETE', this.path(hwid, `/tags/${typeof tag === 'string' ? segment(tag) : tag.raw}`));
  }
  importCsv(text: string | Buffer, contentType = 'text/csv', query: Query = {}) {
    return this.send('POST', '/devices/import', { body: text, contentType, query });
  }
  importJson(value: unknown, query: Query = {}) {
    return this.send('POST', '/devices/import', { body: typeof value === 'string' ? value : JSON.stringify(value), contentType: 'application/json', query });
  }

  /** Creates a device and returns its record (fails the test otherwise). */
  async created(body: Record<string, unknown>): Promise<DeviceRecord> {
    const reply = await this.create(body);
    if (reply.status !== 201) throw new Error(`create device: ${reply.describe()}`);
    return reply.json<DeviceRecord>();
  }

  async imported(reply: Promise<HttpReply>): Promise<ImportResultBody> {
    const r = await reply;
    if (r.status !== 200) throw new Error(`import: ${r.describe()}`);
    return r.json<ImportResultBody>();
  }
}

/** HW ids with characters that are reserved, unsafe or special somewhere (URL, LIKE, CSV, JSON, shell). */
export const AWKWARD_HWIDS = [
  'a/b',
  'q?x=1&y',
  'h#frag',
  '100%',
  '%2F',
  'import',
  'tags',
  '..',
  '.',
  'x.y',
  "~!*'()",
  'A"B',
  '<>\\^`{|}',
  ';,:@=+$[]',
  'Case',
  'case',
  'x'.repeat(64),
  '!',
  '~',
] as const;
