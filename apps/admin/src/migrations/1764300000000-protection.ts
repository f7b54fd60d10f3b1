import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Maintenance mode and IP blocks (docs/api.md "Maintenance mode and IP blocks").
 * maintenance_setting has exactly one row; its `revision` grows with every change of the
 * setting or of a block, so the gateways' once-a-second re-read transfers the blocks only when
 * they changed. ip_blocks holds one row per normalised network (a second block of the same
 * network replaces the first); expired rows stay (listed with all=true) until replaced or deleted.
 */
export class Protection1764300000000 implements MigrationInterface {
  name = 'Protection1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin.maintenance_setting (
        id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        enabled boolean NOT NULL DEFAULT false,
        message text,
        revision bigint NOT NULL DEFAULT 1,
        updated_by text,
        updated_at timestamptz
      )`);
    await queryRunner.query(`INSERT INTO admin.maintenance_setting (id) VALUES (1)`);
    await queryRunner.query(`
      CREATE TABLE admin.ip_blocks (
        cidr text PRIMARY KEY,
        reason text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX ip_blocks_created_at_idx ON admin.ip_blocks (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.ip_blocks`);
    await queryRunner.query(`DROP TABLE admin.maintenance_setting`);
  }
}
