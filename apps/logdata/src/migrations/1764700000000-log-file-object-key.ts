import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The staging clean-up asks which of a page of object keys a log file owns
 * (LogFileRepository.ownedObjectKeys, `object_key = ANY`): an index, so the question reads a
 * few index entries instead of every log file.
 */
export class LogFileObjectKey1764700000000 implements MigrationInterface {
  name = 'LogFileObjectKey1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX log_file_object_key_idx ON logdata.log_file (object_key)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX logdata.log_file_object_key_idx`);
  }
}
