/**
 * Small helpers for repositories, identical on both adapters (PostgreSQL and embedded PGlite
 * return the same JS types: see connect.ts).
 */

/**
 * int8 / bigint / count(*) / sum() of integers come back as decimal strings on both adapters
 * (as `pg` does by default, so values beyond 2^53 are never silently rounded). Convert them
 * where a JS number is wanted. Also accepts number and bigint. Throws a TypeError on anything
 * that is not an integer within Number.MAX_SAFE_INTEGER.
 */
export function toInt(value: unknown): number {
  let result: number;
  if (typeof value === 'number') result = value;
  else if (typeof value === 'bigint') result = Number(value);
  else if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) result = Number(value);
  else throw new TypeError(`expected an integer (number, bigint or decimal string), got ${describe(value)}`);
  if (!Number.isSafeInteger(result)) throw new TypeError(`expected a safe integer, got ${describe(value)}`);
  return result;
}

/** Like toInt, but an absent value (no row, NULL) counts as 0. */
export function toIntOrZero(value: unknown): number {
  return value === null || value === undefined ? 0 : toInt(value);
}

/** timestamptz arrives as a Date (pg) or as text: answer a Date either way. */
export function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

/** A nullable timestamp column: null for null, otherwise as toDate. */
export function toNullableDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** bytea arrives as a Buffer, a Uint8Array or hex text (\\x...): answer a Buffer. */
export function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  const text = String(value);
  return text.startsWith('\\x') ? Buffer.from(text.slice(2), 'hex') : Buffer.from(text, 'latin1');
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null) return 'null';
  return typeof value === 'object' ? Object.prototype.toString.call(value) : `${typeof value} ${String(value)}`;
}

/** SQLSTATE of the PostgreSQL error behind `err` (a TypeORM QueryFailedError or a raw driver error). */
export function sqlState(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code = e.driverError?.code ?? e.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * True when `err` is a unique violation (SQLSTATE 23505) — the way to detect "already exists"
 * after an INSERT, on both adapters. Pass `constraint` to also require the constraint (or
 * unique index) name, e.g. `isUniqueViolation(err, 'uq_devices_serial')`.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (sqlState(err) !== '23505') return false;
  if (constraint === undefined) return true;
  const e = err as { constraint?: unknown; driverError?: { constraint?: unknown } };
  return (e.driverError?.constraint ?? e.constraint) === constraint;
}

/** Schema names are interpolated into DDL: keep them to plain lower-case identifiers. */
export function assertSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema) || schema.startsWith('pg_')) {
    throw new Error(`invalid schema name "${schema}": use lower-case letters, digits and _ (not starting with pg_)`);
  }
  return schema;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A value as an SQL literal, for the rare statement that cannot take parameters (one sent in a
 * multi-statement message: see copyRows' `first`): text quoted (an E'' string when it holds a
 * backslash, whatever standard_conforming_strings says), a safe integer as it is, null as NULL,
 * an array as the text of an array value (`'{1,2}'`: array_in reads it far faster than an
 * `ARRAY[...]` expression of as many constants is parsed), to be cast to its type. Anything
 * else, and text holding NUL, is refused.
 */
export function sqlLiteral(value: string | number | null | readonly (string | number | null)[]): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return safeInteger(value);
  if (typeof value === 'string') return quotedText(value);
  return quotedText(`{${value.map(arrayElement).join(',')}}`);
}

function safeInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not a safe integer for an SQL literal: ${value}`);
  return String(value);
}

function quotedText(value: string): string {
  if (value.includes('\0')) throw new TypeError('text for an SQL literal cannot contain NUL');
  const quoted = `'${value.replace(/'/g, "''")}'`;
  return value.includes('\\') ? `E${quoted.replace(/\\/g, '\\\\')}` : quoted;
}

/** An element of an array value's text: NULL, a number, or text double-quoted with `"` and `\` escaped. */
function arrayElement(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return safeInteger(value);
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** A timestamp column (a Date, or text) as ISO 8601 text. */
export function toIso(value: unknown): string {
  return toDate(value).toISOString();
}

/** A value for a `$n::jsonb` parameter: its JSON text, or null for null and undefined. */
export function jsonParam(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A json/jsonb object column (parsed already, or JSON text on some paths) as an object, or null. */
export function toJsonObject(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return JSON.parse(value) as Record<string, unknown>;
  return value as Record<string, unknown>;
}

/**
 * A WHERE clause built from the filters given, with its parameters: absent filters add no
 * condition, so each query can use its index.
 */
export class SqlConditions {
  readonly parameters: unknown[] = [];
  private readonly conditions: string[] = [];

  /** `$n` of a new parameter. */
  parameter(value: unknown): string {
    this.parameters.push(value);
    return `$${this.parameters.length}`;
  }

  /** Adds a condition on a new parameter; returns the parameter's `$n`. */
  add(condition: (parameter: string) => string, value: unknown): string {
    const parameter = this.parameter(value);
    this.conditions.push(condition(parameter));
    return parameter;
  }

  /** Adds a condition without a parameter. */
  condition(condition: string): void {
    this.conditions.push(condition);
  }

  /** `WHERE a AND b`, or nothing when no filter was given. */
  where(): string {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }
}
