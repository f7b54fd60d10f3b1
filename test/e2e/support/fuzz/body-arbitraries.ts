import fc from 'fast-check';
import { INVALID_JSON, type Labelled } from './hostile-values.js';
import type { JsonSchema, Operation } from './openapi-model.js';
import { boundaryValue, hostileString, validValue, wrongTypeValue } from './schema-arbitraries.js';

/**
 * Request bodies for an operation, from its `requestBody` in /openapi.json: JSON objects built
 * from the schema (valid, one field wrong or at its bounds, hostile strings everywhere, extra
 * properties, huge strings), bytes that are not JSON, multipart uploads (valid what strings,
 * missing parts, broken framing), raw files and device imports; each with a Content-Type that
 * is usually right and sometimes not. Operations without a body sometimes get a stray one.
 */

export interface BodyChoice {
  readonly label: string;
  readonly body?: Buffer;
  /** undefined: no Content-Type header. */
  readonly contentType?: string;
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** Mostly the declared media type, sometimes a wrong or odd one. */
function contentTypeFor(declared: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(declared) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        'application/json; charset=utf-8',
        'application/json; charset=latin1',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'application/octet-stream',
        'application/problem+json',
        'application/json, text/plain',
        '*/*',
        'application/json; \u00ff',
        `application/${'x'.repeat(300)}`,
      ),
    },
  );
}

function properties(schema: JsonSchema): [string, JsonSchema][] {
  return Object.entries(schema.properties ?? {});
}

const isStringish = (s: JsonSchema): boolean => s.type === 'string' || (s.anyOf?.every((a) => typeof a.const === 'string') ?? false);

/** A JSON object body built from `schema`, in one of several shapes. */
function jsonValueFor(schema: JsonSchema): fc.Arbitrary<Labelled<unknown>> {
  const props = properties(schema);
  const names = props.map(([name]) => name);
  const valid = validValue(schema).map((value) => ({ label: 'valid object', value }));
  const withField = (make: (s: JsonSchema) => fc.Arbitrary<Labelled<unknown>>, what: string) =>
    names.length === 0
      ? valid
      : fc.constantFrom(...props).chain(([name, s]) =>
          fc.tuple(validValue(schema), make(s)).map(([base, field]) => ({
            label: `${what} ${name}: ${field.label}`,
            value: { ...(base as object), [name]: field.value },
          })),
        );
  const hostileEverywhere = fc
    .tuple(
      validValue(schema),
      fc.tuple(
        ...props.map(([, s]) =>
          s.type === 'array' && s.items && isStringish(s.items) ? fc.array(hostileString(), { minLength: 1, maxLength: 2 }) : hostileString(),
        ),
      ),
    )
    .map(([base, picks]) => {
      const value: Record<string, unknown> = { ...(base as object) };
      const labels: string[] = [];
      props.forEach(([name, s], i) => {
        const pick = picks[i];
        if (Array.isArray(pick)) {
          value[name] = pick.map((p) => p.value);
          labels.push(...pick.map((p) => p.label));
        } else if (isStringish(s) || s.type === undefined) {
          value[name] = pick.value;
          labels.push(pick.label);
        }
      });
      return { label: `hostile strings in every string field (${labels.join(', ')})`, value: value as unknown };
    });
  const huge = fc
    .tuple(validValue(schema), fc.constantFrom(...(names.length ? names : ['x'])), fc.constantFrom(70_000, 140_000, 300_000))
    .map(([base, name, size]) => ({ label: `huge string (${size} chars) in ${name}`, value: { ...(base as object), [name]: 'a'.repeat(size) } as unknown }));
  const extra = fc
    .tuple(validValue(schema), hostileString(), fc.jsonValue({ maxDepth: 1 }))
    .map(([base, key, v]) => ({ label: `extra property named ${key.label}`, value: { ...(base as object), [key.value]: v } as unknown }));
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 2, arbitrary: withField(wrongTypeValue, 'wrong type in') },
    { weight: 2, arbitrary: withField(boundaryValue, 'boundary in') },
    { weight: 3, arbitrary: hostileEverywhere },
    { weight: 1, arbitrary: extra },
    { weight: 1, arbitrary: huge },
    { weight: 1, arbitrary: wrongTypeValue().map(({ label, value }) => ({ label: `body is ${label}`, value })) },
  );
}

function jsonBody(schema: JsonSchema): fc.Arbitrary<BodyChoice> {
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(jsonValueFor(schema), contentTypeFor('application/json'))
        .map(([v, contentType]) => ({ label: v.label, body: json(v.value), contentType })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...INVALID_JSON), contentTypeFor('application/json'))
        .map(([bad, contentType]) => ({ label: `invalid JSON: ${bad.label}`, body: bad.value, contentType })),
    },
    { weight: 1, arbitrary: contentTypeFor('application/json').map((contentType) => ({ label: 'empty body', body: Buffer.alloc(0), contentType })) },
  );
}

// ---------------------------------------------------------------- multipart

interface Part {
  readonly headers: string;
  readonly data: Buffer;
}

function multipartBytes(boundary: string, parts: readonly Part[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) chunks.push(Buffer.from(`--${boundary}\r\n${part.headers}\r\n\r\n`, 'latin1'), part.data, Buffer.from('\r\n'));
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const fileHeaders = (name: string, filename = 'firmware.bin', type = 'application/octet-stream') =>
  `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}`;

/** Noise without '@', so that the only what strings are the ones put in. */
const noise = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes.map((b) => (b === 0x40 ? 0x41 : b))));

const whatString: fc.Arbitrary<Labelled<string>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.stringMatching(/^[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,3}(-rc[0-9])?$/),
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom('AFI', 'EFI', 'MFI'),
      )
      .map(([version, date, type]) => ({ label: 'valid what string', value: `${version}, ${date.toISOString()}, ${type}` })),
  },
  {
    weight: 1,
    arbitrary: hostileString().map(({ label, value }) => ({ label: `what string version ${label}`, value: `${value}, 2026-01-01T00:00:00Z, AFI` })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { label: 'what string with a bad date', value: '1.0.0, 2026-13-45, AFI' },
      { label: 'what string with a bad type', value: '1.0.0, 2026-01-01, XFI' },
      { label: 'what string without commas', value: '1.0.0' },
      { label: 'empty what string', value: '' },
      { label: 'what string of 300 chars', value: `${'9'.repeat(280)}, 2026-01-01, AFI` },
    ),
  },
);

const firmwareBinary = fc
  .tuple(noise, whatString, noise)
  .map(([head, what, tail]) => ({ label: what.label, value: Buffer.concat([head, Buffer.from(`@(#)${what.value}\0`, 'utf8'), tail]) }));

const boundaryArb = fc.oneof(
  { weight: 9, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{8,30}$/) },
  { weight: 1, arbitrary: fc.constantFrom('a"b', 'x'.repeat(90), 'sp ace') },
);

function multipartBody(withNotes: boolean): fc.Arbitrary<BodyChoice> {
  type Shape = (boundary: string, binary: Labelled<Buffer>, notes: Labelled<string> | null, junk: Buffer) => BodyChoice;
  const ct = (boundary: string) => `multipart/form-data; boundary=${boundary}`;
  const firmware = (binary: Labelled<Buffer>): Part => ({ headers: fileHeaders('firmware'), data: binary.value });
  const notesPart = (notes: Labelled<string> | null): Part[] =>
    withNotes && notes ? [{ headers: fileHeaders('notes', 'notes.txt', 'text/plain'), data: Buffer.from(notes.value) }] : [];
  // Built only when drawn (one of them is a 1 MiB body).
  const valid: Shape = (b, binary, notes) => ({
    label: `multipart, ${binary.label}${notesPart(notes).length ? `, notes ${notes?.label}` : ''}`,
    body: multipartBytes(b, [firmware(binary), ...notesPart(notes)]),
    contentType: ct(b),
  });
  const broken: Shape[] = [
    (b, binary) => ({
      label: 'multipart without the firmware part',
      body: multipartBytes(b, [{ headers: fileHeaders('other'), data: binary.value }]),
      contentType: ct(b),
    }),
    (b, binary) => ({
      label: 'multipart, firmware as a plain field',
      body: multipartBytes(b, [{ headers: 'Content-Disposition: form-data; name="firmware"', data: binary.value }]),
      contentType: ct(b),
    }),
    (b, binary) => ({ label: 'multipart, two firmware parts', body: multipartBytes(b, [firmware(binary), firmware(binary)]), contentType: ct(b) }),
    (b, _binary, _notes, junk) => ({
      label: 'multipart, binary without a what string',
      body: multipartBytes(b, [{ headers: fileHeaders('firmware'), data: junk }]),
      contentType: ct(b),
    }),
    (b, binary) => ({
      label: 'multipart, hostile filename',
      body: multipartBytes(b, [{ headers: fileHeaders('firmware', '..\\..\u00ff"\u0000.bin'), data: binary.value }]),
      contentType: ct(b),
    }),
    (b, binary) => ({ label: 'multipart without the closing boundary', body: multipartBytes(b, [firmware(binary)], false), contentType: ct(b) }),
    (b, binary) => ({ label: 'multipart, truncated in a part', body: multipartBytes(b, [firmware(binary)]).subarray(0, 60), contentType: ct(b) }),
    (b, binary) => ({ label: 'multipart without a boundary parameter', body: multipartBytes(b, [firmware(binary)]), contentType: 'multipart/form-data' }),
    (b, binary) => ({
      label: 'multipart with another boundary',
      body: multipartBytes(b, [firmware(binary)]),
      contentType: 'multipart/form-data; boundary=other',
    }),
    (_b, binary) => ({ label: 'raw binary, not multipart', body: binary.value, contentType: 'application/octet-stream' }),
    (b) => ({ label: 'multipart, empty body', body: Buffer.alloc(0), contentType: ct(b) }),
    (b) => ({
      label: 'multipart, 1200 what strings',
      body: multipartBytes(b, [
        { headers: fileHeaders('firmware'), data: Buffer.from(Array.from({ length: 1200 }, (_, i) => `@(#)1.${i}.0, 2026-01-01, AFI\0`).join('x')) },
      ]),
      contentType: ct(b),
    }),
    ...(withNotes
      ? [
          ((b, binary) => ({
            label: 'multipart, notes over 1 MiB',
            body: multipartBytes(b, [
              firmware(binary),
              { headers: fileHeaders('notes', 'notes.txt', 'text/plain'), data: Buffer.alloc(1024 * 1024 + 1, 0x6e) },
            ]),
            contentType: ct(b),
          })) as Shape,
        ]
      : []),
  ];
  const shape = fc.oneof({ weight: 10, arbitrary: fc.constant(valid) }, { weight: 8, arbitrary: fc.constantFrom(...broken) });
  return fc.tuple(shape, boundaryArb, firmwareBinary, fc.option(hostileString()), noise).map(([make, b, binary, notes, junk]) => make(b, binary, notes, junk));
}

// ---------------------------------------------------------------- raw files and imports

function rawFileBody(): fc.Arbitrary<BodyChoice> {
  const data = fc.oneof(
    fc.uint8Array({ maxLength: 2048 }).map((bytes) => ({ label: 'random bytes', value: Buffer.from(bytes) })),
    hostileString().map(({ label, value }) => ({ label: `text ${label}`, value: Buffer.from(value) })),
    fc.constant({ label: 'empty file', value: Buffer.alloc(0) }),
  );
  const ct = fc.constantFrom<string | undefined>(
    undefined,
    'text/plain',
    'application/octet-stream',
    'application/json',
    'x/y; charset=\u00ff',
    `text/${'x'.repeat(300)}`,
    '',
  );
  return fc.tuple(data, ct).map(([d, contentType]) => ({ label: `file: ${d.label}`, body: d.value, contentType }));
}

function importBody(): fc.Arbitrary<BodyChoice> {
  const hwid = fc.oneof(
    fc.stringMatching(/^[!-~]{1,20}$/),
    hostileString().map((h) => h.value),
  );
  const tag = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,10}$/),
    hostileString().map((h) => h.value),
  );
  const csvRows = fc.array(fc.tuple(hwid, fc.array(tag, { maxLength: 3 })), { maxLength: 6 });
  const csv = fc
    .tuple(
      fc.constantFrom('hwid,tags', 'hwid', 'tags,hwid', 'hwid,tags,attributes', '', '\ufeffhwid,tags', 'hwid;tags'),
      csvRows,
      fc.constantFrom('\n', '\r\n', '\r'),
    )
    .map(([header, rows, eol]) => ({
      label: `CSV with header ${JSON.stringify(header)}`,
      body: Buffer.from([header, ...rows.map(([h, tags]) => `${h.includes(',') ? `"${h.replace(/"/g, '""')}"` : h},${tags.join(' ')}`)].join(eol)),
      contentType: 'text/csv' as string | undefined,
    }));
  const jsonRows = fc
    .array(fc.record({ hwid, tags: fc.array(tag, { maxLength: 3 }), attributes: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['hwid'] }), { maxLength: 6 })
    .map((rows) => ({ label: 'JSON rows', body: json(rows), contentType: 'application/json' as string | undefined }));
  const broken = fc
    .constantFrom(...INVALID_JSON)
    .map((bad) => ({ label: `invalid JSON: ${bad.label}`, body: bad.value, contentType: 'application/json' as string | undefined }));
  const wrongType = fc
    .tuple(csv, fc.constantFrom<string | undefined>(undefined, 'text/plain', 'application/xml', 'text/csv; charset=latin1'))
    .map(([c, contentType]) => ({ ...c, label: `${c.label} as ${contentType ?? 'no Content-Type'}`, contentType }));
  return fc.oneof(csv, jsonRows, broken, wrongType);
}

/** A stray body on an operation that takes none. */
const strayBody: fc.Arbitrary<BodyChoice> = fc.constantFrom(
  { label: 'stray JSON body', body: json({ a: 1 }), contentType: 'application/json' },
  { label: 'stray invalid JSON body', body: Buffer.from('{'), contentType: 'application/json' },
  { label: 'stray binary body', body: Buffer.from([0, 255, 0, 255]), contentType: 'application/octet-stream' },
);

export function bodyArbitrary(op: Operation): fc.Arbitrary<BodyChoice> {
  const content = op.doc.requestBody?.content;
  if (!content) return fc.oneof({ weight: 9, arbitrary: fc.constant<BodyChoice>({ label: 'no body' }) }, { weight: 1, arbitrary: strayBody });
  const types = Object.keys(content);
  if (types.includes('multipart/form-data')) return multipartBody('notes' in (content['multipart/form-data'].schema?.properties ?? {}));
  if (types.includes('text/csv')) return importBody();
  if (types.includes('application/json')) return jsonBody(content['application/json'].schema ?? {});
  return rawFileBody();
}
