import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RequestLogRow } from '../dtos/request-log-entry.js';

const COLUMNS = ['ts', 'domain', 'actor', 'method', 'route', 'path', 'status', 'ip', 'user_agent', 'bytes_in', 'bytes_out', 'duration_ms', 'request_id'] as const;
const TYPES: Record<(typeof COLUMNS)[number], string> = {
  ts: 'timestamptz',
  domain: 'text',
  actor: 'text',
  method: 'text',
  route: 'text',
  path: 'text',
  status: 'integer',
  ip: 'text',
  user_agent: 'text',
  bytes_in: 'bigint',
  bytes_out: 'bigint',
  duration_ms: 'integer',
  request_id: 'text',
};

/**
 * One statement per batch whatever its size: the rows travel as 13 array parameters, one per
 * column, and `unnest` turns them back into rows (no per-entry round trip, and no limit from
 * PostgreSQL's 65535 bind parameters as a VALUES list of 13 x N placeholders would have).
 */
const INSERT_BATCH = `INSERT INTO admin.request_log (${COLUMNS.join(', ')})
  SELECT * FROM unnest(${COLUMNS.map((c, i) => `$${i + 1}::${TYPES[c]}[]`).join(', ')})`;

/** Every query of admin.request_log. Cross-customer by nature (operator data). */
@Injectable()
export class RequestLogRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async insertBatch(rows: readonly RequestLogRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      INSERT_BATCH,
      COLUMNS.map((column) => rows.map((row) => row[column])),
    );
  }
}
