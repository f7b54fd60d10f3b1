import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The same rules for a log file's name (128 lowercase hex digits) and SHA-256 (64), written so
 * that they cost the database next to nothing per row. The bounded repetitions of
 * `^[0-9a-f]{128}$` and `^[0-9a-f]{64}$` made PostgreSQL's regular expression engine most of
 * the cost of loading log files: in the embedded database 10,000 rows took 0.49 s of CPU
 * with them and 0.12-0.2 s with these (a restore loads every row). A length check and a
 * one-character class that must not match accept exactly the same values (the columns are
 * character(n): `length` and the cast to text leave out the padding).
 */
export class LogFileChecks1765400000000 implements MigrationInterface {
  name = 'LogFileChecks1765400000000';
  /** Not in one transaction: swapped NOT VALID (a moment's lock), then validated beside reads and writes (as RegistryDeviceHwidCheck1765400000000). */
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE logdata.log_file
        DROP CONSTRAINT log_file_name_check,
        ADD CONSTRAINT log_file_name_check CHECK (length(name) = 128 AND name::text !~ '[^0-9a-f]') NOT VALID,
        DROP CONSTRAINT log_file_sha256_check,
        ADD CONSTRAINT log_file_sha256_check CHECK (length(sha256) = 64 AND sha256::text !~ '[^0-9a-f]') NOT VALID`);
    await queryRunner.query(`ALTER TABLE logdata.log_file VALIDATE CONSTRAINT log_file_name_check`);
    await queryRunner.query(`ALTER TABLE logdata.log_file VALIDATE CONSTRAINT log_file_sha256_check`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE logdata.log_file
        DROP CONSTRAINT log_file_name_check,
        ADD CONSTRAINT log_file_name_check CHECK (name ~ '^[0-9a-f]{128}$'),
        DROP CONSTRAINT log_file_sha256_check,
        ADD CONSTRAINT log_file_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$')`);
  }
}
