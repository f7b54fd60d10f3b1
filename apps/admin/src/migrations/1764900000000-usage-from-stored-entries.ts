import type { MigrationInterface, QueryRunner } from 'typeorm';
import { cellsOfBatches, COUNTER_COLUMNS, COUNTER_NAMES, COUNTERS_ADDED } from '../stats/usage-counters.js';

const SUMS = COUNTER_NAMES.map((name) => `sum(c.${name})`).join(', ');

/**
 * The usage counters summed from the stored entries instead of counted by the admin app per
 * batch (docs/performance.md "The request-log ingest"): storing a batch then costs no counting,
 * no counters row and no fold on its way.
 *
 * - request_log.batch: the number of the batch that stored the entry (null for entries stored
 *   before this migration: those were counted already). Numbers come from the sequence
 *   request_log_batch_no, which each admin process takes a thousand at a time (INCREMENT 1000),
 *   so numbering a batch costs no round trip; a bigint costs COPY less than a uuid per row.
 * - usage_unfolded: the batches stored but not yet summed into usage_daily, with the time range
 *   of their entries (where the fold finds them through the `ts` index; a batch whose entries
 *   lie far apart has a row per range). Written in each batch's transaction, so a batch is
 *   counted once: the fold deletes its rows as it adds their cells.
 * - usage_pending (a row of counter arrays per batch) goes, folded into usage_daily first.
 */
export class UsageFromStoredEntries1764900000000 implements MigrationInterface {
  name = 'UsageFromStoredEntries1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE admin.request_log ADD COLUMN batch bigint`);
    await queryRunner.query(`CREATE SEQUENCE admin.request_log_batch_no AS bigint INCREMENT BY 1000`);
    await queryRunner.query(`
      CREATE TABLE admin.usage_unfolded (
        batch bigint NOT NULL,
        first_ts timestamptz(3) NOT NULL,
        last_ts timestamptz(3) NOT NULL,
        CONSTRAINT usage_unfolded_pkey PRIMARY KEY (batch, first_ts)
      )`);
    await queryRunner.query(`
      INSERT INTO admin.usage_daily (${COUNTER_COLUMNS})
      SELECT c.day, c.domain, ${SUMS}
        FROM admin.usage_pending p, unnest(p.day, p.domain, ${COUNTER_NAMES.map((name) => `p.${name}`).join(', ')}) AS c(${COUNTER_COLUMNS})
       GROUP BY c.day, c.domain
      ON CONFLICT (day, domain) DO UPDATE SET ${COUNTERS_ADDED}`);
    await queryRunner.query(`DROP TABLE admin.usage_pending`);
  }

  /** The batches not yet summed are summed into usage_daily first (none lost; the bulk table is gone by then), then the tables as they were. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      INSERT INTO admin.usage_daily (${COUNTER_COLUMNS})
      ${cellsOfBatches('admin.usage_unfolded', { withBulk: false })}
      ON CONFLICT (day, domain) DO UPDATE SET ${COUNTERS_ADDED}`);
    await queryRunner.query(`DROP TABLE admin.usage_unfolded`);
    await queryRunner.query(`DROP SEQUENCE admin.request_log_batch_no`);
    await queryRunner.query(`ALTER TABLE admin.request_log DROP COLUMN batch`);
    await queryRunner.query(`
      CREATE TABLE admin.usage_pending (
        id bigint GENERATED ALWAYS AS IDENTITY,
        day date[] NOT NULL,
        domain text[] NOT NULL,
        ${COUNTER_NAMES.map((name) => `${name} bigint[] NOT NULL`).join(',\n        ')},
        CONSTRAINT usage_pending_pkey PRIMARY KEY (id)
      )`);
  }
}
