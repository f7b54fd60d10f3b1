import type { CustomerId } from '@app/contracts';
import type { EntityManager, Repository } from 'typeorm';
import type { StoredLogFile } from '../domain/log-file.js';
import { LogFileEntity } from '../entities/log-file.entity.js';
import type { Tenant } from '@app/infra';

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

type LogFileRow = Record<string, unknown>;

/**
 * Every query of logdata.log_file. Tenant methods take `Tenant<...>` (libs/infra
 * database/tenant.ts). Bound to an EntityManager by LogdataStore: the DataSource's own, or a
 * transaction's.
 */
export class LogFileRepository {
  private readonly files: Repository<LogFileEntity>;

  constructor(manager: EntityManager) {
    this.files = manager.getRepository(LogFileEntity);
  }

  /**
   * Insert-if-absent in one statement (INSERT ... ON CONFLICT DO NOTHING). Returns the new row,
   * or null when the name is taken. A concurrent uncommitted insert of the same name makes this
   * statement wait for it, so afterwards the existing row is visible to the next statement.
   */
  async insertIfAbsent(file: Tenant<NewLogFile>): Promise<StoredLogFile | null> {
    const result = await this.files
      .createQueryBuilder()
      .insert()
      .into(LogFileEntity)
      .values({
        customerId: file.customerId,
        name: file.name,
        objectKey: file.objectKey,
        sizeBytes: file.sizeBytes,
        sha256: file.sha256,
        contentType: file.contentType,
        uploadedBy: file.uploadedBy,
      })
      .orIgnore()
      .returning('*')
      .updateEntity(false)
      .execute();
    const rows = (Array.isArray(result.raw) ? result.raw : []) as LogFileRow[];
    return rows.length ? fromRow(rows[0]) : null;
  }

  findByName(query: Tenant<{ name: string }>): Promise<StoredLogFile | null> {
    return this.files.findOneBy({ customerId: query.customerId, name: query.name });
  }

  /** Files of one customer sorted by name, at most `limit` rows from `offset`. */
  list(query: Tenant<LogFileFilter>): Promise<StoredLogFile[]> {
    const qb = this.files.createQueryBuilder('f').where('f.customerId = :customerId', { customerId: query.customerId });
    if (query.prefix) qb.andWhere('f.name LIKE :prefix', { prefix: `${query.prefix}%` });
    if (query.uploadedAfter) qb.andWhere('f.uploadedAt > :after', { after: query.uploadedAfter });
    if (query.uploadedBefore) qb.andWhere('f.uploadedAt < :before', { before: query.uploadedBefore });
    return qb.orderBy('f.name', 'ASC').offset(query.offset).limit(query.limit).getMany();
  }

  /**
   * Counts one served download. The increment happens in the database (never read-modify-write),
   * so concurrent events never lose one; last_accessed_at never moves backwards. False when the
   * file does not exist.
   */
  async recordDownload(query: Tenant<{ name: string; at: Date }>): Promise<boolean> {
    const result = await this.files
      .createQueryBuilder()
      .update(LogFileEntity)
      .set({
        downloadCount: () => 'download_count + 1',
        lastAccessedAt: () => 'GREATEST(last_accessed_at, CAST(:at AS timestamptz))',
      })
      .where('customer_id = :customerId AND name = :name', { customerId: query.customerId, name: query.name })
      .setParameter('at', query.at.toISOString())
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Cross-tenant on purpose (staging clean-up): which of `keys` a log file holds. */
  async ownedObjectKeys(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const rows = await this.files
      .createQueryBuilder('f')
      .select('f.object_key', 'key')
      .where('f.object_key = ANY(:keys)', { keys: [...keys] })
      .getRawMany<{ key: unknown }>();
    return rows.map((row) => String(row.key));
  }

  /** Cross-tenant on purpose (admin customer list): file count and stored bytes per requested customer. */
  async countsByCustomer(customerIds: readonly CustomerId[]): Promise<Map<CustomerId, StoredCounts>> {
    const counts = new Map<CustomerId, StoredCounts>();
    if (customerIds.length === 0) return counts;
    const rows = await this.files
      .createQueryBuilder('f')
      .select('f.customer_id', 'customer_id')
      .addSelect('COUNT(*)', 'count')
      .addSelect('COALESCE(SUM(f.size_bytes), 0)', 'stored_bytes')
      .where('f.customerId IN (:...ids)', { ids: [...customerIds] })
      .groupBy('f.customer_id')
      .getRawMany<{ customer_id: string; count: unknown; stored_bytes: unknown }>();
    for (const row of rows) {
      counts.set(row.customer_id as CustomerId, { count: Number(row.count), storedBytes: Number(row.stored_bytes) });
    }
    return counts;
  }

  /** Cross-tenant on purpose (customer deletion): the stored file of every log file of the customer. */
  async objectKeysOfCustomer(customerId: CustomerId): Promise<string[]> {
    const rows = await this.files
      .createQueryBuilder('f')
      .select('f.object_key', 'object_key')
      .where('f.customerId = :customerId', { customerId })
      .getRawMany<{ object_key: string }>();
    return rows.map((row) => row.object_key);
  }

  /** Customer deletion: every log file row of the customer; rows removed. */
  async deleteCustomerRows(customerId: CustomerId): Promise<number> {
    const result = await this.files.createQueryBuilder().delete().from(LogFileEntity).where('customer_id = :customerId', { customerId }).execute();
    return result.affected ?? 0;
  }
}

/** Maps a RETURNING row (column names, driver types) to the entity. */
function fromRow(row: LogFileRow): LogFileEntity {
  const entity = new LogFileEntity();
  entity.customerId = String(row.customer_id) as CustomerId;
  entity.name = String(row.name);
  entity.objectKey = String(row.object_key);
  entity.sizeBytes = Number(row.size_bytes);
  entity.sha256 = String(row.sha256);
  entity.contentType = String(row.content_type);
  entity.uploadedAt = toDate(row.uploaded_at)!;
  entity.uploadedBy = String(row.uploaded_by);
  entity.downloadCount = Number(row.download_count);
  entity.lastAccessedAt = toDate(row.last_accessed_at);
  return entity;
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}
