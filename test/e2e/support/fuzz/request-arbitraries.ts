import fc from 'fast-check';
import { SESSION_COOKIES } from '@app/contracts';
import { bodyArbitrary } from './body-arbitraries.js';
import { HOSTILE_WIRE, type Labelled, percentEncode, WRONG_TYPE_SPELLINGS } from './hostile-values.js';
import type { JsonSchema, Operation, ParameterDoc } from './openapi-model.js';
import { boundaryValue, hostileString, validValue } from './schema-arbitraries.js';

/**
 * One fast-check arbitrary of HTTP requests per operation of /openapi.json: its path with each
 * parameter a real value, a schema-valid one, one at its bounds, the wrong type, a hostile
 * string or bytes that are not valid percent-encoding; its declared query parameters (same
 * kinds, repeated, plus unknown ones); its body (./body-arbitraries.ts); credentials, Accept and
 * a few odd headers; now and then another method or a mangled path. Requests are bytes as sent.
 */

export interface Credentials {
  readonly full: string;
  readonly readOnly: string;
  readonly admin: string;
}

export interface FuzzContext {
  readonly credentials: Credentials;
  /** Real values (decoded) for this parameter of this operation: ids and names of the fixtures. */
  realValues(op: Operation, param: ParameterDoc): readonly string[];
}

export interface FuzzRequest {
  readonly operation: string;
  readonly method: string;
  /** Path and query exactly as sent (a latin1 string: one character per byte). */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Source address (127.0.0.x): spreads the per-address rate limits. */
  readonly localAddress: string;
  /** What the generator chose, for the report. */
  readonly choices: readonly string[];
}

/** Asked for JSON errors: `Accept` names application/json (or application/problem+json). */
export function asksForJson(request: FuzzRequest): boolean {
  return /\bapplication\/(?:problem\+)?json\b/i.test(request.headers.accept ?? '');
}

function spell(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(spell).join(',');
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A parameter value as it goes on the wire. */
function wireValue(schema: JsonSchema | undefined, real: readonly string[]): fc.Arbitrary<Labelled<string>> {
  const encoded = (label: string) => (value: unknown) => ({ label, value: percentEncode(spell(value)) });
  const arbitraries: fc.WeightedArbitrary<Labelled<string>>[] = [
    { weight: 3, arbitrary: validValue(schema).map(encoded('valid')) },
    { weight: 2, arbitrary: boundaryValue(schema).map((b) => ({ label: `boundary ${b.label}`, value: percentEncode(spell(b.value)) })) },
    { weight: 1, arbitrary: fc.constantFrom(...WRONG_TYPE_SPELLINGS).map((v) => ({ label: `wrong type ${v}`, value: percentEncode(v) })) },
    { weight: 3, arbitrary: hostileString().map((h) => ({ label: `hostile ${h.label}`, value: percentEncode(h.value) })) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_WIRE).map((w) => ({ label: `bytes ${w.label}`, value: w.value })) },
  ];
  if (real.length > 0) {
    arbitraries.push({ weight: 5, arbitrary: fc.constantFrom(...real).map(encoded('real')) });
    arbitraries.push({
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...real), fc.constantFrom(...HOSTILE_WIRE))
        .map(([r, w]) => ({ label: `real + bytes ${w.label}`, value: percentEncode(r) + w.value })),
    });
  }
  return fc.oneof(...arbitraries);
}

function pathArbitrary(op: Operation, ctx: FuzzContext): fc.Arbitrary<Labelled<string>> {
  const values = op.pathParams.map((p) => wireValue(p.schema, ctx.realValues(op, p)));
  const mangle = fc.oneof(
    { weight: 19, arbitrary: fc.constant<Labelled<(path: string) => string>>({ label: '', value: (p) => p }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Labelled<(path: string) => string>>(
        { label: 'trailing slash', value: (p) => `${p}/` },
        { label: 'double leading slash', value: (p) => `/${p}` },
        { label: 'extra segment', value: (p) => `${p}/x` },
        { label: 'dot segment', value: (p) => `/.${p}` },
        { label: 'upper case', value: (p) => p.replace(/[a-z]/g, (c) => c.toUpperCase()) },
        { label: 'empty segment', value: (p) => p.replace(/\/([^/]*)$/, '//$1') },
      ),
    },
  );
  return fc.tuple(fc.tuple(...values), mangle).map(([picked, m]) => {
    let i = 0;
    const labels: string[] = [];
    const path = op.segments
      .map((segment) => {
        if (segment !== null) return segment;
        const param = op.pathParams[i];
        const value = picked[i++];
        labels.push(`path ${param.name}: ${value.label}`);
        return value.value;
      })
      .join('/');
    if (m.label) labels.push(`path mangled: ${m.label}`);
    return { label: labels.join('; '), value: m.value(path) };
  });
}

function queryArbitrary(op: Operation, ctx: FuzzContext): fc.Arbitrary<Labelled<string>> {
  const params = op.queryParams.map((p) => {
    const isArray = p.schema?.type === 'array';
    const one = wireValue(isArray ? p.schema?.items : p.schema, ctx.realValues(op, p));
    const max = p.schema?.maxItems ?? 1;
    const values = isArray
      ? fc.oneof(
          { weight: 4, arbitrary: fc.array(one, { minLength: 1, maxLength: 3 }) },
          { weight: 1, arbitrary: fc.array(one, { minLength: max + 1, maxLength: max + 1 }) },
        )
      : fc.oneof({ weight: 9, arbitrary: one.map((v) => [v]) }, { weight: 1, arbitrary: fc.array(one, { minLength: 2, maxLength: 3 }) });
    // A required parameter is mostly present, an optional one sometimes.
    return fc.option(values, { freq: p.required ? 10 : 2, nil: null }).map((v) => (v === null ? null : { param: p.name, values: v }));
  });
  const extra = fc.option(
    fc.oneof(
      fc
        .tuple(hostileString(), hostileString())
        .map(([k, v]) => ({ label: `unknown parameter ${k.label}`, value: `${percentEncode(k.value)}=${percentEncode(v.value)}` })),
      fc.constantFrom(
        { label: 'raw &&&', value: '&&&' },
        { label: 'raw =', value: '=' },
        { label: 'name without value', value: 'customer' },
        { label: 'bad percent-encoding in a name', value: '%zz=1' },
        { label: 'bad percent-encoding in a value', value: 'limit=%E0%A4' },
        { label: 'encoded NUL name', value: '%00=%00' },
        { label: 'raw ? in the query', value: 'a=b?c' },
        { label: 'plus signs', value: 'q=a+b' },
      ),
    ),
    { freq: 6, nil: null },
  );
  return fc.tuple(fc.tuple(...params), extra).map(([picked, e]) => {
    const pairs: string[] = [];
    const labels: string[] = [];
    for (const p of picked) {
      if (!p) continue;
      for (const v of p.values) pairs.push(`${p.param}=${v.value}`);
      labels.push(`query ${p.param}: ${p.values.map((v) => v.label).join(' + ')}`);
    }
    if (e) {
      pairs.push(e.value);
      labels.push(`query ${e.label}`);
    }
    return { label: labels.join('; '), value: pairs.length ? `?${pairs.join('&')}` : '' };
  });
}

/**
 * Operations that change the whole service for every client (maintenance mode, IP blocks): the
 * fuzz never sends them with the admin token, or a generated `{enabled: true}` or block would
 * turn the rest of the run into 503s and 403s. Their own end-to-end tests cover them.
 */
const SERVICE_WIDE = new Set(['adminSetMaintenance', 'adminCreateIpBlock']);

/** The Authorization/Cookie header of one of: none, the customer's full and read-only tokens, the admin token, garbage. */
function credentialArbitrary(credentials: Credentials, withAdmin: boolean): fc.Arbitrary<Labelled<Record<string, string>>> {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const tamper = (token: string) => token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA');
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ label: 'no credentials', value: {} }) },
    { weight: 3, arbitrary: fc.constant({ label: 'full token', value: bearer(credentials.full) }) },
    { weight: 2, arbitrary: fc.constant({ label: 'read-only token', value: bearer(credentials.readOnly) }) },
    withAdmin
      ? { weight: 3, arbitrary: fc.constant({ label: 'admin token', value: bearer(credentials.admin) }) }
      : { weight: 3, arbitrary: fc.constant({ label: 'full token instead of the admin token', value: bearer(credentials.full) }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Labelled<Record<string, string>>>(
        { label: 'garbage bearer', value: bearer('garbage') },
        { label: 'empty bearer', value: { authorization: 'Bearer ' } },
        { label: 'scheme only', value: { authorization: 'Bearer' } },
        { label: 'basic auth', value: { authorization: 'Basic dXNlcjpwYXNz' } },
        { label: 'bearer of 8000 chars', value: bearer('a'.repeat(8000)) },
        { label: 'tampered full token', value: bearer(tamper(credentials.full)) },
        { label: 'full token without signature', value: bearer(`${credentials.full.split('.').slice(0, 2).join('.')}.`) },
        { label: 'unsigned JWT', value: bearer('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.') },
        { label: 'two tokens', value: { authorization: `Bearer ${credentials.full} ${withAdmin ? credentials.admin : credentials.readOnly}` } },
        { label: 'latin-1 bytes in the bearer', value: bearer('\u00ff\u00fe') },
        {
          label: 'garbage session cookies',
          value: { cookie: `${SESSION_COOKIES.access}=garbage; ${SESSION_COOKIES.refresh}=garbage`, 'x-csrf-token': 'garbage' },
        },
        { label: 'cookie header of junk', value: { cookie: ';;=;\u00ff=\u00fe; a' } },
      ),
    },
  );
}

const acceptArbitrary = fc.oneof(
  { weight: 3, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 3, arbitrary: fc.constant<string | undefined>('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom<string | undefined>('text/plain', '*/*', 'application/problem+json', 'text/html', 'application/json;q=0.1, text/plain', ''),
  },
);

const extraHeaders = fc.option(
  fc.constantFrom<Labelled<Record<string, string>>>(
    { label: 'If-None-Match garbage', value: { 'if-none-match': 'garbage' } },
    { label: 'If-None-Match *', value: { 'if-none-match': '*' } },
    { label: 'If-Match garbage', value: { 'if-match': '"nope"' } },
    { label: 'If-Match *', value: { 'if-match': '*' } },
    { label: 'Range garbage', value: { range: 'bytes=garbage' } },
    { label: 'Range reversed', value: { range: 'bytes=5-1' } },
    { label: 'Range first byte', value: { range: 'bytes=0-0' } },
    { label: 'Range past the end', value: { range: 'bytes=999999999-' } },
    { label: 'Range of 500 parts', value: { range: `bytes=${Array.from({ length: 500 }, (_, i) => `${i}-${i}`).join(',')}` } },
    { label: 'Content-Encoding gzip (not gzip)', value: { 'content-encoding': 'gzip' } },
    { label: 'X-Forwarded-For junk', value: { 'x-forwarded-for': '1.2.3.4, junk, ::1' } },
    { label: 'Origin foreign', value: { origin: 'https://evil.example' } },
    { label: 'X-CSRF-Token hostile', value: { 'x-csrf-token': '\u00ff'.repeat(10) } },
    { label: 'User-Agent of 8000 chars', value: { 'user-agent': 'u'.repeat(8000) } },
    { label: 'X-Request-Id hostile', value: { 'x-request-id': '../\u00ff' } },
  ),
  { freq: 4, nil: null },
);

const OTHER_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function requestArbitrary(op: Operation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof(
    { weight: 23, arbitrary: fc.constant(op.method) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS.filter((m) => m !== op.method)) },
  );
  return fc
    .record({
      method,
      path: pathArbitrary(op, ctx),
      query: queryArbitrary(op, ctx),
      body: bodyArbitrary(op),
      credentials: credentialArbitrary(ctx.credentials, !SERVICE_WIDE.has(op.id)),
      accept: acceptArbitrary,
      extra: extraHeaders,
      host: fc.integer({ min: 20, max: 250 }),
    })
    .map((r) => {
      const headers: Record<string, string> = { 'user-agent': 'fds-fuzz', ...r.credentials.value };
      if (r.accept !== undefined) headers.accept = r.accept;
      if (r.body.contentType !== undefined) headers['content-type'] = r.body.contentType;
      if (r.body.body !== undefined) headers['content-length'] = String(r.body.body.length);
      if (r.extra) Object.assign(headers, r.extra.value);
      const choices = [
        ...(r.method !== op.method ? [`method ${r.method} instead of ${op.method}`] : []),
        r.path.label,
        r.query.label,
        `body: ${r.body.label}${r.body.contentType === undefined ? '' : ` (${r.body.contentType.slice(0, 60)})`}`,
        `credentials: ${r.credentials.label}`,
        `accept: ${r.accept ?? 'none'}`,
        ...(r.extra ? [`header: ${r.extra.label}`] : []),
      ].filter((c) => c !== '');
      return {
        operation: op.id,
        method: r.method,
        target: r.path.value + r.query.value,
        headers,
        body: r.body.body,
        localAddress: `127.0.0.${r.host}`,
        choices,
      };
    });
}
