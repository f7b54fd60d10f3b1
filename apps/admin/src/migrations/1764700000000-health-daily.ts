import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-part health history. health_sample gains each part's state at the sample's time
 * (`parts`, {"database": "up", ...}; '{}' for samples taken before); health_daily holds the
 * samples rolled up per UTC day and part (`service` is the whole service: up = ok), kept 400
 * days. The roll-up moves samples into it, so health_sample only holds what has not been
 * rolled up yet.
 */
export class HealthDaily1764700000000 implements MigrationInterface {
  name = 'HealthDaily1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE admin.health_sample ADD COLUMN parts jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await queryRunner.query(`
      CREATE TABLE admin.health_daily (
        day date NOT NULL,
        part text NOT NULL,
        samples integer NOT NULL,
        up integer NOT NULL,
        degraded integer NOT NULL,
        down integer NOT NULL,
        CONSTRAINT health_daily_pkey PRIMARY KEY (day, part),
        CONSTRAINT health_daily_counts_check CHECK (samples = up + degraded + down AND up >= 0 AND degraded >= 0 AND down >= 0)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.health_daily`);
    await queryRunner.query(`ALTER TABLE admin.health_sample DROP COLUMN parts`);
  }
}
