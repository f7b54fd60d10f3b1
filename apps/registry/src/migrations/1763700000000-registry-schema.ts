import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The registry owns the `registry` schema; devices and their tags arrive with the device registry issue. */
export class RegistrySchema1763700000000 implements MigrationInterface {
  name = 'RegistrySchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA registry IS 'device registry: devices and device tags'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA registry IS NULL`);
  }
}
