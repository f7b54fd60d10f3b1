import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log's domain and address indexes keyed by a 64-bit hash of the value instead of
 * the text (docs/performance.md "The request-log ingest"): every stored entry adds one entry to
 * each, at a random place, and the text keys cost most of that insert in comparisons while
 * descending the tree (a varlena compare each, and the ts after a variable-width column read
 * the slow way). A fixed-width key compares as an integer. Queries name the same expression
 * and recheck the real value on the row (StatsRepository.events), so a hash shared by two
 * values only costs reading the other's entries. A missing domain hashes as '' (never stored:
 * empty text is stored as null), so the `(none)` filter is an equality too and reads newest
 * first. Expressions, not stored columns: nothing to backfill, and the COPY stays as it is.
 */
export class RequestLogHashedKeys1764900000000 implements MigrationInterface {
  name = 'RequestLogHashedKeys1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX admin.request_log_domain_ts_idx`);
    await queryRunner.query(`DROP INDEX admin.request_log_ip_ts_idx`);
    await queryRunner.query(`CREATE INDEX request_log_domain_key_ts_idx ON admin.request_log ((hashtextextended(coalesce(domain, ''), 0)), ts)`);
    await queryRunner.query(`CREATE INDEX request_log_ip_key_ts_idx ON admin.request_log ((hashtextextended(ip, 0)), ts)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX admin.request_log_domain_key_ts_idx`);
    await queryRunner.query(`DROP INDEX admin.request_log_ip_key_ts_idx`);
    await queryRunner.query(`CREATE INDEX request_log_domain_ts_idx ON admin.request_log (domain COLLATE "C", ts)`);
    await queryRunner.query(`CREATE INDEX request_log_ip_ts_idx ON admin.request_log (ip COLLATE "C", ts)`);
  }
}
