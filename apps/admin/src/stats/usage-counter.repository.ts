import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { cellsOfBatches, COUNTER_COLUMNS, COUNTERS_ADDED } from './usage-counters.js';

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
         ON CONFLICT (day, domain) DO UPDATE SET ${COUNTERS_ADDED}
       )
       SELECT count(*)::int AS folded FROM batches`,
      [maxNotes],
      '64MB', // a fold's entries (200 gateway batches: about 100,000) sorted in memory, not on disk
    );
    return folded;
  }
}
