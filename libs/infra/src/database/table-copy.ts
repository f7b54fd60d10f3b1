import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { EntityManager } from 'typeorm';
import { SessionLease } from './pglite-driver.js';
import { sql } from './sql-runner.js';
import { assertSchemaName, quoteIdent, toInt } from './sql.js';

/**
 * Whole tables in and out of one transaction, as rows in COPY's text format (one line per row,
 * tab-separated, `\N` for NULL, backslash escapes), streamed so that memory stays bounded
 * whatever the table's size. For backups (docs/architecture.md "Backups: each app's data").
 *
 * - PostgreSQL: `COPY ... TO STDOUT` / `COPY ... FROM STDIN` through pg-copy-streams, on the
 *   transaction's own connection (so inside its snapshot).
 * - Embedded PGlite: its wire protocol takes no COPY data. Out: the table is read a few heap
 *   blocks at a time (`ctid` ranges: a TID range scan, no sort, no index needed, whatever the
 *   keys), each range one `COPY (SELECT ...) TO '/dev/blob'`. In: each chunk of rows is one
 *   `COPY ... FROM '/dev/blob'` on the transaction's session.
 */

/** Heap blocks (8 KiB each) per embedded read: about 1 MiB of rows a query. */
const EMBEDDED_PAGE_BLOCKS = 128;

export interface TableRef {
  readonly schema: string;
  readonly table: string;
}

export interface TableColumns extends TableRef {
  readonly columns: readonly string[];
}

export interface TableSource extends TableColumns {
  /** A condition on the rows (trusted SQL written in code, e.g. `notes_object_key IS NOT NULL`). */
  readonly where?: string;
}

function qualified(ref: TableRef): string {
  return `${quoteIdent(assertSchemaName(ref.schema))}.${quoteIdent(ref.table)}`;
}

/** The connection a transaction's manager runs on: the pg client, or the lease on the embedded session. */
async function connectionOf(manager: EntityManager): Promise<pg.PoolClient | SessionLease> {
  const runner = manager.queryRunner;
  if (!runner?.isTransactionActive) throw new Error('table copy runs inside a transaction: pass its manager');
  return (await runner.connect()) as pg.PoolClient | SessionLease;
}

/** The table's columns that hold data, in table order (generated columns are computed, never copied). */
export async function storedColumns(manager: EntityManager, ref: TableRef): Promise<string[]> {
  const { rows } = await sql(
    manager,
    `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [qualified(ref)],
  );
  return rows.map((r) => String(r.attname));
}

/** The schema's tables (partitioned ones once, not their partitions). */
export async function schemaTables(manager: EntityManager, schema: string): Promise<string[]> {
  const { rows } = await sql(
    manager,
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
    [assertSchemaName(schema)],
  );
  return rows.map((r) => String(r.relname));
}

/**
 * The rows of a table in COPY text format, in chunks (a chunk may end inside a row; the
 * stream as a whole is whole lines). Inside the manager's transaction, hence its snapshot.
 */
export async function* copyTableOut(manager: EntityManager, source: TableSource): AsyncGenerator<Buffer> {
  const connection = await connectionOf(manager);
  const columns = source.columns.map(quoteIdent);
  if (connection instanceof SessionLease) {
    yield* embeddedTableOut(manager, connection, source);
    return;
  }
  const from = source.where ? `(SELECT ${columns.join(', ')} FROM ${qualified(source)} WHERE ${source.where})` : `${qualified(source)} (${columns.join(', ')})`;
  const stream = connection.query(copyTo(`COPY ${from} TO STDOUT`));
  let complete = false;
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
    complete = true;
  } finally {
    // Left early (the reader failed): the rest is read and dropped, since the connection must
    // see the COPY end before it can roll the transaction back (a destroyed copy stream would
    // leave it waiting forever).
    if (!complete) {
      stream.resume();
      await finished(stream).catch(() => undefined);
    }
  }
}

async function* embeddedTableOut(manager: EntityManager, session: SessionLease, source: TableSource): AsyncGenerator<Buffer> {
  const { rows } = await sql(manager, `SELECT pg_relation_size($1::regclass) / current_setting('block_size')::bigint AS blocks`, [qualified(source)]);
  const blocks = toInt(rows[0].blocks);
  const select = source.columns.map(quoteIdent).join(', ');
  const where = source.where ? ` AND (${source.where})` : '';
  for (let block = 0; block < blocks; block += EMBEDDED_PAGE_BLOCKS) {
    // COPY takes no parameters: the block numbers are integers written here.
    const range = `ctid >= '(${block},0)'::tid AND ctid < '(${block + EMBEDDED_PAGE_BLOCKS},0)'::tid`;
    const chunk = await session.copyTo(`SELECT ${select} FROM ${qualified(source)} WHERE ${range}${where}`);
    if (chunk.length > 0) yield chunk;
  }
}

/**
 * Appends rows in COPY text format to a table inside the manager's transaction. `chunks`
 * must each end on a row boundary (the embedded database copies each as one statement).
 * A value the table refuses fails the copy with PostgreSQL's error; the caller rolls back.
 */
export async function copyTableIn(manager: EntityManager, target: TableColumns, chunks: AsyncIterable<Buffer>): Promise<void> {
  const connection = await connectionOf(manager);
  const into = `${qualified(target)} (${target.columns.map(quoteIdent).join(', ')})`;
  if (connection instanceof SessionLease) {
    for await (const chunk of chunks) if (chunk.length > 0) await connection.copyFrom(into, chunk);
    return;
  }
  const stream = connection.query(copyFrom(`COPY ${into} FROM STDIN`));
  const finished = once(stream, 'finish'); // rejects with the stream's 'error' (PostgreSQL refused the data)
  finished.catch(() => undefined); // awaited below; an early rejection must not go unhandled meanwhile
  try {
    for await (const chunk of chunks) await write(stream, chunk);
  } catch (err) {
    stream.destroy(err as Error); // sends CopyFail: PostgreSQL ends the COPY, the transaction is then rolled back
    await finished.catch(() => undefined);
    throw err;
  }
  stream.end();
  await finished;
}

/** Writes with backpressure; rejects when the stream fails meanwhile. */
async function write(stream: Writable, chunk: Buffer): Promise<void> {
  if (stream.errored) throw stream.errored;
  if (stream.destroyed) throw new Error('copy stream closed');
  if (stream.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      stream.off('drain', done);
      stream.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
  });
}
