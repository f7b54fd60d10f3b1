import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admin app owns the `admin` schema (created by openAppDatabase before migrations run).
 *
 * request_log: the request-log entries, one row per request, written in batches by the
 * gateways. Indexes: ts (time-range scans, retention) and (domain, ts) (per-customer stats and
 * access log). health_sample: the gateways' periodic /status evaluations for /health/history.
 * Statistics, audit entries and security events arrive here in later migrations.
 */
export class AdminSchema1763700000000 implements MigrationInterface {
  name = 'AdminSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA admin IS 'operations: request log, health history (later: stats, audit, security events)'`);
    await queryRunner.query(`
      CREATE TABLE admin.request_log (
        id bigint GENERATED ALWAYS AS IDENTITY,
        ts timestamptz(3) NOT NULL,
        domain text,
        actor text,
        method text NOT NULL,
        route text NOT NULL,
        path text NOT NULL,
        status integer NOT NULL,
        ip text NOT NULL,
        user_agent text NOT NULL,
        bytes_in bigint NOT NULL,
        bytes_out bigint NOT NULL,
        duration_ms integer NOT NULL,
        request_id text NOT NULL,
        CONSTRAINT request_log_pkey PRIMARY KEY (id)
      )`);
    await queryRunner.query(`CREATE INDEX request_log_ts_idx ON admin.request_log (ts)`);
    await queryRunner.query(`CREATE INDEX request_log_domain_ts_idx ON admin.request_log (domain, ts)`);
    await queryRunner.query(`
      CREATE TABLE admin.health_sample (
        id bigint GENERATED ALWAYS AS IDENTITY,
        ts timestamptz(3) NOT NULL,
        status text NOT NULL,
        CONSTRAINT health_sample_pkey PRIMARY KEY (id),
        CONSTRAINT health_sample_status_check CHECK (status IN ('ok', 'degraded', 'down'))
      )`);
    await queryRunner.query(`CREATE INDEX health_sample_ts_idx ON admin.health_sample (ts)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.health_sample`);
    await queryRunner.query(`DROP TABLE admin.request_log`);
    await queryRunner.query(`COMMENT ON SCHEMA admin IS NULL`);
  }
}
