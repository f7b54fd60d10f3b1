import { BaseRepository, sql } from '@app/infra';
import type { DailyPartCounts } from '../dtos/health-history.js';

/**
 * Every query of admin.health_daily, the samples counted per UTC day and part (`service`: the
 * whole service, whose `up` counts ok samples).
 */
export class HealthDailyRepository extends BaseRepository {
  /**
   * Moves every sample taken before `before` into the daily counts, in one statement: the
   * samples it deletes are exactly the ones it adds, so a run repeated (or racing another)
   * finds only what is left and never counts a sample twice. How many samples moved.
   */
  async rollUp(before: Date): Promise<number> {
    const {
      rows: [row],
    } = await sql(
      this.manager,
      `WITH moved AS (
         DELETE FROM admin.health_sample WHERE ts < $1 RETURNING ts, status, parts
       ), states AS (
         SELECT (ts AT TIME ZONE 'UTC')::date AS day, 'service' AS part, CASE status WHEN 'ok' THEN 'up' ELSE status END AS state FROM moved
         UNION ALL
         SELECT (m.ts AT TIME ZONE 'UTC')::date, p.key, p.value FROM moved m CROSS JOIN LATERAL jsonb_each_text(m.parts) AS p(key, value)
       ), added AS (
         INSERT INTO admin.health_daily AS d (day, part, samples, up, degraded, down)
         SELECT day, part, count(*), count(*) FILTER (WHERE state = 'up'), count(*) FILTER (WHERE state = 'degraded'),
                count(*) FILTER (WHERE state NOT IN ('up', 'degraded'))
           FROM states GROUP BY day, part
         ON CONFLICT (day, part) DO UPDATE
           SET samples = d.samples + excluded.samples, up = d.up + excluded.up,
               degraded = d.degraded + excluded.degraded, down = d.down + excluded.down
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM added)::int AS days`,
      [before],
    );
    return Number(row.moved);
  }

  /** Removes the days before `day` (YYYY-MM-DD); how many rows went. */
  async deleteBefore(day: string): Promise<number> {
    const { rows: result } = await sql(
      this.manager,
      `WITH gone AS (DELETE FROM admin.health_daily WHERE day < $1::date RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [day],
    );
    return Number(result[0].n);
  }

  /** The rows of the days in [from, to] (YYYY-MM-DD). Days without samples are absent. */
  async between(from: string, to: string): Promise<DailyPartCounts[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, part, samples, up, degraded, down
         FROM admin.health_daily WHERE day BETWEEN $1::date AND $2::date`,
      [from, to],
    );
    return rows.map((r) => ({
      day: String(r.day),
      part: String(r.part),
      samples: Number(r.samples),
      up: Number(r.up),
      degraded: Number(r.degraded),
      down: Number(r.down),
    }));
  }
}
