import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A customer's polling interval for its devices (Poll-After, docs/api.md "When to check again"); null: UPDATE_POLL_SECONDS. */
export class CustomerPollInterval1765300000000 implements MigrationInterface {
  name = 'CustomerPollInterval1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE identity.customers ADD COLUMN poll_interval_seconds integer CHECK (poll_interval_seconds BETWEEN 60 AND 604800)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE identity.customers DROP COLUMN poll_interval_seconds`);
  }
}
