import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The logdata app owns the `logdata` schema (created by openAppDatabase before migrations run).
 *
 * log_file: one row per write-once log file. The primary key (customer_id, name) is what makes
 * uploads write-once: the database, not the object store, decides which upload wins a name.
 * `name` uses the "C" collation so that sorting is by byte order and `LIKE 'prefix%'` can walk the
 * primary-key index; (customer_id, uploaded_at) serves the uploaded_after/uploaded_before filters.
 * Timestamps keep milliseconds only, so the RFC 3339 values the API shows filter exactly.
 */
export class LogdataSchema1763700000000 implements MigrationInterface {
  name = 'LogdataSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA logdata IS 'write-once log files'`);
    await queryRunner.query(`
      CREATE TABLE logdata.log_file (
        customer_id uuid NOT NULL,
        name character(128) COLLATE "C" NOT NULL,
        object_key text NOT NULL,
        size_bytes bigint NOT NULL,
        sha256 character(64) NOT NULL,
        content_type text NOT NULL,
        uploaded_at timestamptz(3) NOT NULL DEFAULT now(),
        uploaded_by text NOT NULL,
        download_count bigint NOT NULL DEFAULT 0,
        last_accessed_at timestamptz(3),
        CONSTRAINT log_file_pkey PRIMARY KEY (customer_id, name),
        CONSTRAINT log_file_name_check CHECK (name ~ '^[0-9a-f]{128}$'),
        CONSTRAINT log_file_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        CONSTRAINT log_file_size_check CHECK (size_bytes >= 0),
        CONSTRAINT log_file_download_count_check CHECK (download_count >= 0)
      )`);
    await queryRunner.query(`CREATE INDEX log_file_customer_uploaded_at_idx ON logdata.log_file (customer_id, uploaded_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE logdata.log_file`);
    await queryRunner.query(`COMMENT ON SCHEMA logdata IS NULL`);
  }
}
