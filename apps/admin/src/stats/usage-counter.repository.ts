import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { COUNTER_NAMES, PENDING_COLUMNS } from './usage-counters.js';

const CELL = `c(${PENDING_COLUMNS})`;
const SUMS = COUNTER_NAMES.map((name) => `sum(c.${name})`).join(', ');
const ADDED = COUNTER_NAMES.map((name) => `${name} = usage_daily.${name} + EXCLUDED.${name}`).join(', ');

/**
 * The cells of the usage counters not yet folded into admin.usage_daily: every (day, customer)
 * cell of admin.usage_pending's rows, as rows of PENDING_COLUMNS. For reads that add them to
 * usage_daily's (the summaries), so a stored batch counts at once.
 */
export const PENDING_CELLS = `SELECT ${COUNTER_NAMES.reduce((sql, name) => `${sql}, c.${name}`, 'c.day, c.domain')}
  FROM admin.usage_pending p, unnest(p.${PENDING_COLUMNS.split(', ').join(', p.')}) AS ${CELL}`;

/** Writes of the usage counters: the pending rows folded into admin.usage_daily. */
@Injectable()
export class UsageCounterRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /**
   * Folds up to `maxRows` pending rows (oldest first) into usage_daily and deletes them, in one
   * statement: a crash leaves them pending, two replicas take different rows (SKIP LOCKED), and
   * the cells are added in key order (concurrent folds lock usage_daily rows in one order).
   * Returns the pending rows folded.
   */
  async foldPending(maxRows: number): Promise<number> {
    const [{ folded }] = await this.dataSource.query<Array<{ folded: number }>>(
      `WITH moved AS (
         DELETE FROM admin.usage_pending
          WHERE id IN (SELECT id FROM admin.usage_pending ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING ${PENDING_COLUMNS}
       ), added AS (
         INSERT INTO admin.usage_daily (${PENDING_COLUMNS})
         SELECT c.day, c.domain, ${SUMS}
           FROM moved p, unnest(p.${PENDING_COLUMNS.split(', ').join(', p.')}) AS ${CELL}
          GROUP BY c.day, c.domain ORDER BY c.day, c.domain
         ON CONFLICT (day, domain) DO UPDATE SET ${ADDED}
       )
       SELECT count(*)::int AS folded FROM moved`,
      [maxRows],
    );
    return folded;
  }
}
