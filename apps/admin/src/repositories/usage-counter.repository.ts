import { BaseRepository, sql } from '@app/infra';
import { cellsOfBatches, COUNTER_COLUMNS, COUNTERS_ADDED, UNFOLDED_PLANNING } from '../stats/usage-counters.js';

/** Writes of the usage counters: the stored batches folded into admin.usage_daily. */
export class UsageCounterRepository extends BaseRepository {
  /**
   * Folds up to `maxNotes` rows of usage_unfolded (a batch has one per time range of its
   * entries, nearly always one) into usage_daily and forgets them, in one
   * statement: a crash leaves them unfolded, two replicas take different batches (SKIP LOCKED),
   * and the cells are added in key order (concurrent folds lock usage_daily rows in one order).
   * Returns the rows folded.
   */
  async foldBatches(maxNotes: number): Promise<number> {
    const {
      rows: [{ folded }],
    } = await sql(
      this.manager,
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
      // a fold's entries (200 gateway batches: about 100,000) sorted in memory, not on disk
      { ...UNFOLDED_PLANNING, workMem: '64MB' },
    );
    return Number(folded);
  }
}
