import { Inject, Injectable } from '@nestjs/common';
import { copyRows, type CopyValue, sqlLiteral } from '@app/infra';
import { DataSource } from 'typeorm';
import type { RequestLogRow } from '../dtos/request-log-entry.js';
import { pendingInsertOf } from '../stats/usage-counters.js';

/** Where the rows go: admin.request_log, these columns. */
const REQUEST_LOG = {
  schema: 'admin',
  table: 'request_log',
  columns: ['ts', 'domain', 'actor', 'method', 'route', 'path', 'status', 'ip', 'user_agent', 'bytes_in', 'bytes_out', 'duration_ms', 'request_id', 'refusal'],
} as const;

/** A row's values in the order of REQUEST_LOG.columns (written out: a loop over the names would be a megamorphic keyed read per value). */
function valuesOf(row: RequestLogRow): CopyValue[] {
  return [
    row.ts,
    row.domain,
    row.actor,
    row.method,
    row.route,
    row.path,
    row.status,
    row.ip,
    row.user_agent,
    row.bytes_in,
    row.bytes_out,
    row.duration_ms,
    row.request_id,
    row.refusal ?? null,
  ];
}

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** The refusal of a batch id stored before (the key of admin.request_log_batch), on either adapter (TypeORM copies the driver's fields). */
function isSeenBatch(err: unknown): boolean {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && constraint === 'request_log_batch_pkey';
}

/** About one batch in this many prunes the seen batch ids (a cheap indexed delete). */
const PRUNE_CHANCE = 1 / 1000;

/** Every query of admin.request_log. Cross-customer by nature (operator data). */
@Injectable()
export class RequestLogRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /**
   * One COPY per batch whatever its size (no 65535 bind-parameter limit), with the batch's usage
   * counters added in its transaction as one admin.usage_pending row (docs/api.md "Usage
   * statistics"; UsageRollup folds them into the daily counters). Every request writes a row:
   * COPY costs PostgreSQL about half the CPU per row of an INSERT (see copyRows), and a row of
   * arrays per batch far less than an upsert per (day, customer) cell (docs/performance.md).
   */
  async insertBatch(rows: readonly RequestLogRow[]): Promise<void> {
    const pending = pendingInsertOf(rows);
    await copyRows(this.dataSource, REQUEST_LOG, rows.map(valuesOf), { first: pending ? [pending] : [] });
  }

  /**
   * The batch `batchId` once: its id claimed in admin.request_log_batch, its counters and its
   * COPY, in one transaction and one round trip (copyRows' `first`), so a batch seen before is
   * refused by the id's key and skipped as a whole (false). Ids older than a day are pruned now
   * and then (a gateway retries for minutes, not days).
   */
  async insertBatchOnce(batchId: string, rows: readonly RequestLogRow[]): Promise<boolean> {
    const pending = pendingInsertOf(rows);
    const claim = `INSERT INTO admin.request_log_batch (id) VALUES (${sqlLiteral(batchId)})`;
    let copied = true;
    try {
      await copyRows(this.dataSource, REQUEST_LOG, rows.map(valuesOf), { first: pending ? [claim, pending] : [claim] });
    } catch (err) {
      if (!isSeenBatch(err)) throw err;
      copied = false;
    }
    if (Math.random() < PRUNE_CHANCE) {
      await this.dataSource.query(`DELETE FROM admin.request_log_batch WHERE received_at < now() - interval '1 day'`);
    }
    return copied;
  }
}
