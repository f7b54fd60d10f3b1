import { Inject, Injectable } from '@nestjs/common';
import { copyRows, type CopyValue } from '@app/infra';
import { DataSource } from 'typeorm';
import type { RequestLogRow } from '../dtos/request-log-entry.js';
import { COUNTER_NAMES, dailyIncrements } from '../stats/usage-counters.js';

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

/**
 * The batch's usage counters added to admin.usage_daily: one row per (day, customer) of the
 * batch, as arrays (one statement whatever the batch holds).
 */
function usageCountersOf(rows: readonly RequestLogRow[]): { sql: string; parameters: unknown[] } | undefined {
  if (rows.length === 0) return undefined;
  const cells = dailyIncrements(rows);
  const columns = COUNTER_NAMES.join(', ');
  const arrays = COUNTER_NAMES.map((_, i) => `$${i + 3}::bigint[]`).join(', ');
  const sums = COUNTER_NAMES.map((name) => `${name} = usage_daily.${name} + EXCLUDED.${name}`).join(', ');
  return {
    sql: `INSERT INTO admin.usage_daily (day, domain, ${columns})
          SELECT * FROM unnest($1::date[], $2::text[], ${arrays})
          ON CONFLICT (day, domain) DO UPDATE SET ${sums}`,
    parameters: [cells.map((c) => c.day), cells.map((c) => c.domain), ...COUNTER_NAMES.map((name) => cells.map((c) => c.counts[name]))],
  };
}

/** About one batch in this many prunes the seen batch ids (a cheap indexed delete). */
const PRUNE_CHANCE = 1 / 1000;

/** Every query of admin.request_log. Cross-customer by nature (operator data). */
@Injectable()
export class RequestLogRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /**
   * One COPY per batch whatever its size (no 65535 bind-parameter limit), with the batch's usage
   * counters added in its transaction (docs/api.md "Usage statistics"): every request writes
   * a row, and COPY costs PostgreSQL about half the CPU per row of the INSERT ... SELECT from a
   * JSON parameter used before (see copyRows), which left the update check's process more of a
   * shared machine's CPU (bench:update-check).
   */
  async insertBatch(rows: readonly RequestLogRow[]): Promise<void> {
    await copyRows(this.dataSource, REQUEST_LOG, rows.map(valuesOf), { after: usageCountersOf(rows) });
  }

  /**
   * The batch `batchId` once: its id goes into admin.request_log_batch in the COPY's
   * transaction, so a batch seen before is skipped (false). Ids older than a day are pruned
   * now and then (a gateway retries for minutes, not days).
   */
  async insertBatchOnce(batchId: string, rows: readonly RequestLogRow[]): Promise<boolean> {
    const copied = await copyRows(this.dataSource, REQUEST_LOG, rows.map(valuesOf), {
      guard: { sql: `INSERT INTO admin.request_log_batch (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id`, parameters: [batchId] },
      after: usageCountersOf(rows),
    });
    if (Math.random() < PRUNE_CHANCE) {
      await this.dataSource.query(`DELETE FROM admin.request_log_batch WHERE received_at < now() - interval '1 day'`);
    }
    return copied;
  }
}
