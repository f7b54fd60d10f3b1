import type { CustomerId } from '@app/contracts';
import { BaseRepository, type Row, sql, SqlConditions, type Tenant, toDate, toInt, toNullableDate } from '@app/infra';
import type { StoredLogFile } from '../domain/log-file.js';

export interface NewLogFile {
  readonly name: string;
  readonly objectKey: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly contentType: string;
  readonly uploadedBy: string;
}

export interface LogFileFilter {
  /** Lower-case hex. */
  readonly prefix?: string;
  /** Exclusive bounds on uploaded_at. */
  readonly uploadedAfter?: Date;
  readonly uploadedBefore?: Date;
  readonly limit: number;
  readonly offset: number;
}

export interface StoredCounts {
  readonly count: number;
  readonly storedBytes: number;
}

/**
 * Every query of logdata.log_file. Tenant methods take `Tenant<...>` (libs/infra
 * database/tenant.ts). Bound to an EntityManager by LogdataStore: the DataSource's own, or a
 * transaction's.
 */
export class LogFileRepository extends BaseRepository {
  /**
   * Insert-if-absent in one statement (INSERT ... ON CONFLICT DO NOTHING). Returns the new row,
   * or null when the name is taken. A concurrent uncommitted insert of the same name makes this
   * statement wait for it, so afterwards the existing row is visible to the next statement.
   */
  async insertIfAbsent(file: Tenant<NewLogFile>): Promise<StoredLogFile | null> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO logdata.log_file (customer_id, name, object_key, size_bytes, sha256, content_type, uploaded_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT DO NOTHING
       RETURNING *`,
      [file.customerId, file.name, file.objectKey, file.sizeBytes, file.sha256, file.contentType, file.uploadedBy],
    );
    return rows.length ? fromRow(rows[0]) : null;
  }

  async findByName(query: Tenant<{ name: string }>): Promise<StoredLogFile | null> {
    const { rows } = await sql(this.manager, `SELECT * FROM logdata.log_file WHERE customer_id = $1 AND name = $2`, [query.customerId, query.name]);
    return rows.length ? fromRow(rows[0]) : null;
  }

  /** Files of one customer sorted by name, at most `limit` rows from `offset`. */
  async list(query: Tenant<LogFileFilter>): Promise<StoredLogFile[]> {
    const where = new SqlConditions();
    where.add((p) => `customer_id = ${p}`, query.customerId);
    if (query.prefix) where.add((p) => `name LIKE ${p}`, `${query.prefix}%`);
    if (query.uploadedAfter) where.add((p) => `uploaded_at > ${p}`, query.uploadedAfter.toISOString());
    if (query.uploadedBefore) where.add((p) => `uploaded_at < ${p}`, query.uploadedBefore.toISOString());
    const limit = where.parameter(query.limit);
    const offset = where.parameter(query.offset);
    const { rows } = await sql(
      this.manager,
      `SELECT * FROM logdata.log_file ${where.where()} ORDER BY name ASC LIMIT ${limit} OFFSET ${offset}`,
      where.parameters,
    );
    return rows.map(fromRow);
  }

  /**
   * Counts one served download. The increment happens in the database (never read-modify-write),
   * so concurrent events never lose one; last_accessed_at never moves backwards. False when the
   * file does not exist.
   */
  async recordDownload(query: Tenant<{ name: string; at: Date }>): Promise<boolean> {
    const { affected } = await sql(
      this.manager,
      `UPDATE logdata.log_file SET download_count = download_count + 1, last_accessed_at = GREATEST(last_accessed_at, CAST($3 AS timestamptz))
        WHERE customer_id = $1 AND name = $2`,
      [query.customerId, query.name, query.at.toISOString()],
    );
    return affected > 0;
  }

  /** Cross-tenant on purpose (staging clean-up): which of `keys` a log file holds. */
  async ownedObjectKeys(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const { rows } = await sql(this.manager, `SELECT object_key FROM logdata.log_file WHERE object_key = ANY($1::text[])`, [[...keys]]);
    return rows.map((row) => String(row.object_key));
  }

  /** Cross-tenant on purpose (admin customer list): file count and stored bytes per requested customer. */
  async countsByCustomer(customerIds: readonly CustomerId[]): Promise<Map<CustomerId, StoredCounts>> {
    const counts = new Map<CustomerId, StoredCounts>();
    if (customerIds.length === 0) return counts;
    const { rows } = await sql(
      this.manager,
      `SELECT customer_id, count(*) AS count, coalesce(sum(size_bytes), 0) AS stored_bytes
         FROM logdata.log_file WHERE customer_id = ANY($1::uuid[]) GROUP BY customer_id`,
      [[...customerIds]],
    );
    for (const row of rows) {
      counts.set(String(row.customer_id) as CustomerId, { count: Number(row.count), storedBytes: Number(row.stored_bytes) });
    }
    return counts;
  }

  /** Cross-tenant on purpose (customer deletion): the stored file of every log file of the customer. */
  async objectKeysOfCustomer(customerId: CustomerId): Promise<string[]> {
    const { rows } = await sql(this.manager, `SELECT object_key FROM logdata.log_file WHERE customer_id = $1`, [customerId]);
    return rows.map((row) => String(row.object_key));
  }

  /** Customer deletion: every log file row of the customer; rows removed. */
  async deleteCustomerRows(customerId: CustomerId): Promise<number> {
    const { affected } = await sql(this.manager, `DELETE FROM logdata.log_file WHERE customer_id = $1`, [customerId]);
    return affected;
  }
}

/** A row of logdata.log_file (column names, driver types) as the stored record. */
function fromRow(row: Row): StoredLogFile {
  return {
    customerId: String(row.customer_id) as CustomerId,
    name: String(row.name),
    objectKey: String(row.object_key),
    sizeBytes: toInt(row.size_bytes),
    sha256: String(row.sha256),
    contentType: String(row.content_type),
    uploadedAt: toDate(row.uploaded_at),
    uploadedBy: String(row.uploaded_by),
    downloadCount: toInt(row.download_count),
    lastAccessedAt: toNullableDate(row.last_accessed_at),
  };
}
