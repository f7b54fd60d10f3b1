import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DataSource } from 'typeorm';
import { SessionLease } from './pglite-driver.js';
import { assertSchemaName, quoteIdent } from './sql.js';

/** A value COPY's text format carries: text, a finite number, or NULL. */
export type CopyValue = string | number | null;

/**
 * Rows already in COPY's text format, one line each (values through copyField): for a caller
 * that formats its own rows in one pass instead of handing copyRows arrays of values.
 */
export class CopyLines {
  constructor(
    readonly text: string,
    readonly count: number,
  ) {}
}

/** Where copyRows appends: a table of the DataSource's app and the columns of each row, in order. */
export interface CopyTarget {
  readonly schema: string;
  readonly table: string;
  readonly columns: readonly string[];
}

/**
 * Appends rows to a table with one `COPY ... FROM STDIN` (text format), on either adapter:
 * PostgreSQL through pg-copy-streams, the embedded PGlite through its `/dev/blob` input (its
 * wire protocol does not take COPY data). Of the ways to write a batch, COPY costs PostgreSQL
 * the least per row: for the request log's 500-row batches about 4.4 µs of server CPU per row,
 * against 7.8 µs for `INSERT ... SELECT FROM jsonb_array_elements($1)` and 6.6 µs for
 * `unnest` of one array per column (measured on this project's PostgreSQL 15). For append-only
 * tables written at the rate of requests. All rows or none: a value PostgreSQL refuses fails
 * the whole batch (with PostgreSQL's error), and the connection stays usable. True when copied
 * (false only when `options.guard` said no).
 */
export async function copyRows(
  dataSource: DataSource,
  target: CopyTarget,
  rows: readonly (readonly CopyValue[])[] | CopyLines,
  options: CopyOptions = {},
): Promise<boolean> {
  const count = rows instanceof CopyLines ? rows.count : rows.length;
  if (count === 0 && !options.guard && !options.first?.length) return true;
  const into = `${quoteIdent(assertSchemaName(target.schema))}.${quoteIdent(target.table)} (${target.columns.map(quoteIdent).join(', ')})`;
  const data = Buffer.from(rows instanceof CopyLines ? rows.text : copyText(rows, target.columns.length), 'utf8');
  const runner = dataSource.createQueryRunner();
  try {
    const connection = (await runner.connect()) as SessionLease | pg.PoolClient;
    const copy = async () => {
      if (count === 0) return;
      if (connection instanceof SessionLease) await connection.copyFrom(into, data);
      else await copyThroughPg(connection, `COPY ${into} FROM STDIN`, data);
    };
    const first = options.first ?? [];
    if (first.length && !(connection instanceof SessionLease) && !options.guard && !options.after) {
      // One simple-query message: its statements run as one transaction, the COPY's data follows.
      await copyThroughPg(connection, [...first, `COPY ${into} FROM STDIN`].join(';\n'), data);
      return true;
    }
    if (!options.guard && !options.after && !first.length) {
      await copy();
      return true;
    }
    await runner.startTransaction();
    try {
      for (const statement of first) await runner.query(statement);
      if (options.guard) {
        const claimed = (await runner.query(options.guard.sql, [...options.guard.parameters])) as unknown[];
        if (claimed.length === 0) {
          await runner.rollbackTransaction();
          return false;
        }
      }
      await copy();
      if (options.after) await runner.query(options.after.sql, [...options.after.parameters]);
      await runner.commitTransaction();
      return true;
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  } finally {
    await runner.release();
  }
}

export interface CopyOptions {
  /**
   * Statements without parameters (values inlined with sqlLiteral, no result rows) run before
   * the COPY in its transaction. On PostgreSQL they travel in the COPY's own message, so the
   * whole costs one round trip, against one per statement of a transaction. One that fails
   * fails the whole, with PostgreSQL's error (a unique key naming a batch seen before, say: the
   * caller tells by its code and constraint).
   */
  readonly first?: readonly string[];
  /**
   * A statement run first, in one transaction with the COPY: when it returns no row nothing is
   * copied (false). For copying a batch once: `INSERT INTO <seen batches> ... ON CONFLICT DO
   * NOTHING RETURNING id`.
   */
  readonly guard?: { readonly sql: string; readonly parameters: readonly unknown[] };
  /**
   * A statement run after the COPY, in its transaction: what must be stored with the rows or
   * not at all (counters kept from them). Last, so the row locks it takes are held briefly.
   */
  readonly after?: { readonly sql: string; readonly parameters: readonly unknown[] };
}

async function copyThroughPg(client: pg.PoolClient, sql: string, data: Buffer): Promise<void> {
  const stream = client.query(copyFrom(sql));
  const finished = once(stream, 'finish'); // rejects with the stream's 'error' (PostgreSQL refused the data)
  stream.end(data);
  await finished;
}

/** What the text format escapes in a value (NUL it cannot carry at all). */
const NEEDS_ESCAPE = /[\0\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A text value as COPY's text format carries it: `\N` for NULL, backslash, tab, newline and
 * carriage return escaped. A NUL character, which the format cannot carry, is refused.
 */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  if (!NEEDS_ESCAPE.test(value)) return value;
  if (value.includes('\0')) throw new TypeError('copy text cannot contain NUL');
  return escaped(value);
}

function escaped(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (ch) => ESCAPES[ch]);
}

/**
 * Rows in COPY's text format: one line per row, values separated by tabs (text through
 * copyField). A row of the wrong width, a NUL character or a number that is not finite is
 * refused here, naming the row, rather than by PostgreSQL with a less helpful message.
 */
export function copyText(rows: readonly (readonly CopyValue[])[], width: number): string {
  let text = '';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (row.length !== width) throw new TypeError(`copy row ${r} has ${row.length} values, expected ${width}`);
    for (let c = 0; c < width; c++) {
      const value = row[c];
      if (c > 0) text += '\t';
      if (value === null || value === undefined) text += '\\N';
      else if (typeof value === 'number') {
        if (!Number.isFinite(value)) throw new TypeError(`copy row ${r}, value ${c}: ${value} is not a finite number`);
        text += String(value);
      } else if (NEEDS_ESCAPE.test(value)) {
        if (value.includes('\0')) throw new TypeError(`copy row ${r}, value ${c}: text cannot contain NUL`);
        text += escaped(value);
      } else text += value;
    }
    text += '\n';
  }
  return text;
}
