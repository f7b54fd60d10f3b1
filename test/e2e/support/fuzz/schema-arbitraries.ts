import fc from 'fast-check';
import { HOSTILE_STRINGS, type Labelled, LONG_STRINGS, WRONG_TYPE_JSON } from './hostile-values.js';
import type { JsonSchema } from './openapi-model.js';

/**
 * fast-check arbitraries from the JSON Schemas of /openapi.json: values the schema accepts,
 * values at and just past its bounds (lengths, ranges, item counts), values of the wrong
 * type, and hostile strings. Values are JSON values; path and query generators spell them.
 */

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'enum' | 'any';

function kindOf(schema: JsonSchema | undefined): Kind {
  if (!schema) return 'any';
  if (schema.const !== undefined || schema.enum || schema.anyOf?.every((s) => s.const !== undefined)) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
    case 'array':
    case 'object':
      return type;
    default:
      return schema.properties ? 'object' : 'any';
  }
}

/** The constants of an enum-like schema (`const`, `enum` or `anyOf` of consts). */
export function enumValues(schema: JsonSchema): unknown[] {
  if (schema.const !== undefined) return [schema.const];
  if (schema.enum) return [...schema.enum];
  return (schema.anyOf ?? []).map((s) => s.const);
}

const DATE = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });

/** A string matching `pattern` (lookaheads dropped for generation, then checked). */
function matching(pattern: string): fc.Arbitrary<string> {
  const full = new RegExp(pattern);
  try {
    const simplified = new RegExp(pattern.replace(/\(\?=[^()]*\)/g, ''));
    return fc
      .stringMatching(simplified)
      .map((s) => (full.test(s) ? s : s.slice(0, 60)))
      .filter((s) => full.test(s));
  } catch {
    return fc.string({ maxLength: 20 });
  }
}

/** A value the schema accepts (as far as its keywords go). */
export function validValue(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema) return fc.jsonValue({ maxDepth: 1 });
  switch (kindOf(schema)) {
    case 'enum':
      return fc.constantFrom(...enumValues(schema));
    case 'string':
      if (schema.format === 'email') return fc.emailAddress().filter((s) => s.length <= (schema.maxLength ?? 254));
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'date-time') return DATE.map((d) => d.toISOString());
      if (schema.pattern) return matching(schema.pattern);
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0 || depth > 2) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 });
      const required = new Set(schema.required ?? []);
      return fc.record(Object.fromEntries(properties.map(([name, s]) => [name, validValue(s, depth + 1)])), {
        requiredKeys: [...required].filter((name) => schema.properties?.[name] !== undefined),
      });
    }
    case 'any':
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Lengths worth trying for a string schema: both sides of minLength/maxLength and of the pattern's last `{m,n}`. */
export function boundaryLengths(schema: JsonSchema): number[] {
  const lengths = new Set<number>();
  const add = (n: number | undefined) => {
    if (n === undefined) return;
    for (const m of [n - 1, n, n + 1]) if (m >= 0) lengths.add(m);
  };
  add(schema.minLength);
  add(schema.maxLength);
  const quantifier = /\{(\d+)(?:,(\d*))?\}\)?\??\)?\*?\$?\)?$/.exec(schema.pattern ?? '');
  if (quantifier) {
    add(Number(quantifier[1]));
    if (quantifier[2]) {
      add(Number(quantifier[2]));
      add(Number(quantifier[2]) + 1);
    }
  }
  return [...lengths].sort((a, b) => a - b);
}

/** A filler character the pattern accepts (so that only the length is at the edge). */
function fillerFor(schema: JsonSchema): string {
  const inRange = Math.max(1, schema.minLength ?? 1);
  if (!schema.pattern) return 'a';
  const re = new RegExp(schema.pattern);
  for (const c of ['a', '0', 'A', 'x', '!']) {
    for (let n = inRange; n <= inRange + 130; n++) if (re.test(c.repeat(n))) return c;
  }
  return 'a';
}

/** Values at and just beyond the schema's bounds. */
export function boundaryValue(schema: JsonSchema | undefined): fc.Arbitrary<Labelled<unknown>> {
  if (!schema) return fc.constant({ label: 'empty string', value: '' });
  switch (kindOf(schema)) {
    case 'string': {
      const filler = fillerFor(schema);
      const lengths = boundaryLengths(schema);
      if (schema.format === 'email') {
        const max = schema.maxLength ?? 254;
        return fc.constantFrom(
          ...[max - 1, max, max + 1].map((n) => ({ label: `email of ${n} chars`, value: `${'a'.repeat(n - 10)}@x.example` })),
          { label: 'email without @', value: 'no-at.example' },
          { label: 'email with two @', value: 'a@b@c.example' },
        );
      }
      if (schema.format === 'uuid') {
        return fc.constantFrom(
          { label: 'nil uuid', value: '00000000-0000-0000-0000-000000000000' },
          { label: 'uuid without dashes', value: '0123456789abcdef0123456789abcdef' },
          { label: 'uuid one short', value: '01234567-89ab-cdef-0123-456789abcde' },
          { label: 'upper-case uuid', value: 'ABCDEF01-2345-6789-ABCD-EF0123456789' },
        );
      }
      if (schema.format === 'date-time') {
        return fc.constantFrom(
          ...[
            '0000-01-01T00:00:00Z',
            '9999-12-31T23:59:59Z',
            '2026-02-30T00:00:00Z',
            '2026-01-01',
            '2026-01-01T25:00:00Z',
            '2026-01-01T00:00:00+25:00',
            '1',
          ].map((v) => ({
            label: `date ${v}`,
            value: v,
          })),
        );
      }
      if (lengths.length === 0) return fc.constantFrom({ label: 'empty string', value: '' }, { label: '256 chars', value: filler.repeat(256) });
      return fc.constantFrom(...lengths.map((n) => ({ label: `${n} chars`, value: filler.repeat(n) })));
    }
    case 'integer':
    case 'number': {
      const values = new Set<number | string>([0, -1, 2 ** 31, 2 ** 53 + 2, 1.5, -(2 ** 31) - 1]);
      for (const bound of [schema.minimum, schema.maximum]) if (bound !== undefined) for (const v of [bound - 1, bound, bound + 1]) values.add(v);
      return fc.constantFrom(...[...values].map((v) => ({ label: `number ${v}`, value: v })));
    }
    case 'array': {
      const max = schema.maxItems ?? 8;
      const item = validValue(schema.items);
      return fc.oneof(
        fc.constant({ label: 'empty array', value: [] as unknown }),
        fc.array(item, { minLength: max, maxLength: max }).map((value) => ({ label: `${max} items`, value: value as unknown })),
        fc.array(item, { minLength: max + 1, maxLength: max + 1 }).map((value) => ({ label: `${max + 1} items`, value: value as unknown })),
      );
    }
    case 'enum':
      return fc.constantFrom(
        ...enumValues(schema).flatMap((v) =>
          typeof v === 'string'
            ? [
                { label: 'enum upper case', value: v.toUpperCase() },
                { label: 'enum with space', value: ` ${v}` },
              ]
            : [],
        ),
        { label: 'enum empty', value: '' },
      );
    case 'boolean':
      return fc.constantFrom({ label: 'boolean as string', value: 'true' }, { label: 'boolean as 1', value: 1 });
    case 'object':
    case 'any':
      return fc.constantFrom({ label: 'empty object', value: {} }, { label: 'object of 9000 bytes', value: { a: 'a'.repeat(9000) } });
  }
}

export function wrongTypeValue(): fc.Arbitrary<Labelled<unknown>> {
  return fc.constantFrom(...WRONG_TYPE_JSON).map((value) => ({ label: `wrong type ${JSON.stringify(value)}`, value }));
}

/** A hostile string: one of the catalogue, a long one, or random Unicode with a lone surrogate. */
export function hostileString(): fc.Arbitrary<Labelled<string>> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 1, arbitrary: fc.constantFrom(...LONG_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).map((value) => ({ label: 'random Unicode', value })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ unit: 'binary', maxLength: 6 }), fc.integer({ min: 0xd800, max: 0xdfff }))
        .map(([s, unit]) => ({ label: 'random Unicode with a lone surrogate', value: s + String.fromCharCode(unit) })),
    },
  );
}
