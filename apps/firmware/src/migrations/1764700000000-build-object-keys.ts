import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The staging clean-up asks which of a page of object keys a build owns, as its binary or its
 * notes (BuildRepository.ownedObjectKeys, `= ANY` on each column): an index on each, so the
 * question reads a few index entries instead of every build. Notes are optional: only builds
 * with notes are in the second index.
 */
export class BuildObjectKeys1764700000000 implements MigrationInterface {
  name = 'BuildObjectKeys1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX build_object_key_idx ON firmware.build (object_key)`);
    await queryRunner.query(`CREATE INDEX build_notes_object_key_idx ON firmware.build (notes_object_key) WHERE notes_object_key IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX firmware.build_notes_object_key_idx`);
    await queryRunner.query(`DROP INDEX firmware.build_object_key_idx`);
  }
}
