import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CELL_OF_ENTRIES, COUNTER_COLUMNS, COUNTER_NAMES } from './usage-counters.js';

const ADDED = COUNTER_NAMES.map((name) => `${name} = usage_daily.${name} + EXCLUDED.${name}`).join(', ');

/**
 * The entries of the batches `batches` names (rows of batch, first_ts, last_ts), summed into
 * (day, customer) cells as COUNTER_COLUMNS. Each batch's entries are found through the `ts`
 * index within the batch's own time range, and told from other batches' by their `batch`
 * column, so reading them costs no index of its own.
 */
function cellsOfBatches(batches: string): string {
  // A scan of each batch's range (LATERAL; OFFSET 0 keeps the planner from turning it into a join that reads the whole log)
  return `SELECT ${CELL_OF_ENTRIES}
    FROM ${batches} AS b CROSS JOIN LATERAL (
      SELECT ts, domain, method, route, status, refusal FROM admin.request_log
       WHERE ts BETWEEN b.first_ts AND b.last_ts AND batch = b.batch OFFSET 0
    ) AS entry
   GROUP BY 1, 2`;
}

/**
 * The cells of the batches stored but not yet folded into admin.usage_daily (a second's worth
 * while batches arrive). For reads that add them to usage_daily's (the summaries), so a stored
 * batch counts at once.
 */
export const UNFOLDED_CELLS = cellsOfBatches('admin.usage_unfolded');

/**
 * Runs a query that reads the unfolded batches with PostgreSQL's JIT compilation off (SET LOCAL,
 * in a transaction of its own), and more memory for its sort when `workMem` is given.
 * usage_unfolded is emptied and refilled all the time, so its statistics are rarely current;
 * planned for a thousand batches, such a query crosses the JIT cost threshold, and compiling it
 * took 2.3 s for a run of 0.1 s.
 */
export async function queryWithoutJit<T>(dataSource: DataSource, sql: string, parameters: readonly unknown[], workMem?: '64MB'): Promise<T> {
  return dataSource.transaction(async (manager) => {
    await manager.query(workMem ? `SET LOCAL jit = off; SET LOCAL work_mem = '${workMem}'` : 'SET LOCAL jit = off');
    return await manager.query(sql, [...parameters]);
  });
}

/** Writes of the usage counters: the stored batches folded into admin.usage_daily. */
@Injectable()
export class UsageCounterRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /**
   * Folds up to `maxNotes` rows of usage_unfolded (a batch has one per time range of its
   * entries, nearly always one) into usage_daily and forgets them, in one
   * statement: a crash leaves them unfolded, two replicas take different batches (SKIP LOCKED),
   * and the cells are added in key order (concurrent folds lock usage_daily rows in one order).
   * Returns the rows folded.
   */
  async foldBatches(maxNotes: number): Promise<number> {
    const [{ folded }] = await queryWithoutJit<Array<{ folded: number }>>(
      this.dataSource,
      `WITH batches AS (
         DELETE FROM admin.usage_unfolded
          WHERE (batch, first_ts) IN (SELECT batch, first_ts FROM admin.usage_unfolded LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING batch, first_ts, last_ts
       ), added AS (
         INSERT INTO admin.usage_daily (${COUNTER_COLUMNS})
         SELECT * FROM (${cellsOfBatches('batches')}) AS cells ORDER BY day, domain
         ON CONFLICT (day, domain) DO UPDATE SET ${ADDED}
       )
       SELECT count(*)::int AS folded FROM batches`,
      [maxNotes],
      '64MB', // a fold's entries (200 gateway batches: about 100,000) sorted in memory, not on disk
    );
    return folded;
  }
}
