import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Ed25519 keys that sign update-check answers (docs/api.md "Signed answers"), used for
 * nothing else. A key is published from its creation until `published_until` (null: for
 * good); the newest key whose `signs_from` has come signs. A rotation inserts a key that signs
 * from a later time and gives the older keys a `published_until` after it (the overlap).
 */
export class UpdateSigningKeys1765300000000 implements MigrationInterface {
  name = 'UpdateSigningKeys1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE firmware.update_signing_keys (
        kid text PRIMARY KEY,
        public_x text NOT NULL,
        private_pkcs8 text NOT NULL,
        created_at timestamptz NOT NULL,
        signs_from timestamptz NOT NULL,
        published_until timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE firmware.update_signing_keys`);
  }
}
