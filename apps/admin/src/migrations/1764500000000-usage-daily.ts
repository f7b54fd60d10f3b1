import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * usage_daily: the usage counters per UTC day and customer (`(none)` for requests no account
 * can be charged for), added to in the transaction that stores each request-log batch, so
 * the statistics summary reads a few rows per day instead of scanning the request log, and
 * outlives the log's retention. Counting starts with this migration (earlier entries are not
 * counted: the definitions live in the admin app's code, not in SQL).
 */
export class UsageDaily1764500000000 implements MigrationInterface {
  name = 'UsageDaily1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin.usage_daily (
        day date NOT NULL,
        domain text NOT NULL,
        requests bigint NOT NULL DEFAULT 0,
        errors bigint NOT NULL DEFAULT 0,
        firmware_uploads bigint NOT NULL DEFAULT 0,
        logdata_uploads bigint NOT NULL DEFAULT 0,
        firmware_downloads bigint NOT NULL DEFAULT 0,
        notes_downloads bigint NOT NULL DEFAULT 0,
        logdata_downloads bigint NOT NULL DEFAULT 0,
        update_checks bigint NOT NULL DEFAULT 0,
        CONSTRAINT usage_daily_pkey PRIMARY KEY (day, domain)
      )`);
    // The per-customer summary: one customer's days.
    await queryRunner.query(`CREATE INDEX usage_daily_domain_day_idx ON admin.usage_daily (domain, day)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.usage_daily`);
  }
}
