import { BaseRepository, sql } from '@app/infra';
import type { EntityManager } from 'typeorm';

/** A partition of admin.request_log and the end of its range (exclusive; null for the default partition). */
export interface RequestLogPartition {
  readonly name: string;
  readonly before: Date | null;
}

const DAY_MS = 86_400_000;
/** One partition change at a time across admin replicas (creating the same day twice, or dropping while creating). */
const PARTITION_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('admin.request_log partitions'))`;
const DEFAULT_PARTITION = 'request_log_default';
const BULK_DEFAULT_PARTITION = 'request_log_bulk_default';

/** The admin.request_log_bulk partition of the same day as a request_log partition (see migration RequestLogBulk). */
function bulkTwin(name: string): string {
  return name.replace('request_log_', 'request_log_bulk_');
}

/** The partition of the UTC day starting at `day`: request_log_pYYYYMMDD. */
export function partitionName(day: Date): string {
  return `request_log_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * The DDL of admin.request_log's daily partitions (created ahead, dropped whole past retention),
 * each with its twin of admin.request_log_bulk (the same day, made and dropped together).
 */
export class RequestLogPartitionRepository extends BaseRepository {
  async list(): Promise<RequestLogPartition[]> {
    return (await partitionsOf(this.manager))
      .map(({ name, before }) => ({ name, before }))
      .sort((a, b) => (a.before?.getTime() ?? Infinity) - (b.before?.getTime() ?? Infinity));
  }

  /**
   * The partition of the UTC day starting at `day` and its bulk twin, unless one covers it
   * already (false). Entries of that day that went to the default partitions meanwhile move
   * into them, in the same transaction (attaching a range the default partition holds rows of
   * would be refused). Run it in a transaction (AdminStore.transaction).
   */
  async create(day: Date): Promise<boolean> {
    const from = day.toISOString();
    const to = new Date(day.getTime() + DAY_MS).toISOString();
    const name = partitionName(day);
    await sql(this.manager, PARTITION_LOCK_SQL);
    const covered = (await partitionsOf(this.manager)).some(
      (p) => p.before !== null && p.from.getTime() <= day.getTime() && day.getTime() < p.before.getTime(),
    );
    if (covered) return false;
    const range = [from, to];
    for (const [table, partition, defaultPartition, key] of [
      ['request_log', name, DEFAULT_PARTITION, 'ts'],
      ['request_log_bulk', bulkTwin(name), BULK_DEFAULT_PARTITION, 'first_ts'],
    ]) {
      await sql(this.manager, `CREATE TABLE admin.${partition} (LIKE admin.${table} INCLUDING DEFAULTS INCLUDING STORAGE)`);
      await sql(this.manager, `INSERT INTO admin.${partition} SELECT * FROM admin.${defaultPartition} WHERE ${key} >= $1 AND ${key} < $2`, range);
      await sql(this.manager, `DELETE FROM admin.${defaultPartition} WHERE ${key} >= $1 AND ${key} < $2`, range);
      await sql(this.manager, `ALTER TABLE admin.${table} ATTACH PARTITION admin.${partition} FOR VALUES FROM ('${from}') TO ('${to}')`);
    }
    return true;
  }

  /** Entries of the default partitions (timestamps outside every day partition, normally none) older than `cutoff`; a bulk row counts its entries. */
  async trimDefault(cutoff: Date): Promise<number> {
    const {
      rows: [{ n }],
    } = await sql(
      this.manager,
      `WITH trimmed AS (DELETE FROM admin.${DEFAULT_PARTITION} WHERE ts < $1 RETURNING 1),
            trimmed_bulk AS (DELETE FROM admin.${BULK_DEFAULT_PARTITION} WHERE last_ts < $1 RETURNING counts)
       SELECT ((SELECT count(*) FROM trimmed) + coalesce((SELECT sum(n) FROM trimmed_bulk, unnest(counts) AS n), 0))::int AS n`,
      [cutoff.toISOString()],
    );
    return Number(n);
  }

  /**
   * Merges the pending entries of the bulk partitions' GIN indexes (customers, addresses) into
   * the indexes, for the days that ended by `before`: a GIN index with `fastupdate` takes a
   * batch's keys into a pending list that every query reads through whole, and that autovacuum
   * merges only now and then. A day that is over gets no more entries, so one merge is enough
   * (an index with nothing pending costs nothing). Returns the pages merged.
   */
  async settleBulkIndexes(before: Date): Promise<number> {
    const {
      rows: [{ pages }],
    } = await sql(
      this.manager,
      `SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)::int AS pages
         FROM pg_inherits p JOIN pg_index i ON i.indrelid = p.inhrelid
         JOIN pg_class ix ON ix.oid = i.indexrelid JOIN pg_am am ON am.oid = ix.relam AND am.amname = 'gin'
         JOIN pg_class part ON part.oid = p.inhrelid
        WHERE p.inhparent = 'admin.request_log_bulk'::regclass AND part.relname ~ '^request_log_bulk_p[0-9]{8}$'
          AND to_date(substring(part.relname FROM '[0-9]{8}$'), 'YYYYMMDD') < ($1::timestamptz AT TIME ZONE 'UTC')::date`,
      [before.toISOString()],
    );
    return Number(pages);
  }

  /** Drops a partition whole, and its bulk twin (their rows and indexes go with them: no row-by-row delete, no vacuum debt). Run it in a transaction (AdminStore.transaction). */
  async drop(name: string): Promise<void> {
    if (!/^request_log_(p\d{8}|legacy)$/.test(name)) throw new Error(`not a droppable request-log partition: ${name}`);
    await sql(this.manager, PARTITION_LOCK_SQL);
    await sql(this.manager, `DROP TABLE IF EXISTS admin.${name}, admin.${bulkTwin(name)}`);
  }
}

/** The partitions with their ranges (`from` -Infinity for MINVALUE; `before` null for DEFAULT). */
async function partitionsOf(manager: EntityManager): Promise<Array<{ name: string; from: Date; before: Date | null }>> {
  const { rows } = await sql(
    manager,
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'admin.request_log'::regclass`,
  );
  return rows.map((r) => {
    const name = String(r.name);
    const range = /FROM \((?:'([^']+)'|MINVALUE)\) TO \('([^']+)'\)/.exec(String(r.bound));
    if (!range) return { name, from: new Date(-8.64e15), before: null };
    return { name, from: range[1] ? timestampOf(range[1]) : new Date(-8.64e15), before: timestampOf(range[2]) };
  });
}

/** PostgreSQL's timestamptz text (`2026-11-26 00:00:00+00`, in the session's time zone) as a Date. */
function timestampOf(text: string): Date {
  return new Date(text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
}
