import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The firmware owns the `firmware` schema; devices and their tags arrive with the device firmware issue. */
export class FirmwareSchema1763700000000 implements MigrationInterface {
  name = 'FirmwareSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA firmware IS 'firmware builds, release notes and build tags'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA firmware IS NULL`);
  }
}
