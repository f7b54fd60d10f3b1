import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlLiteral } from '@app/infra';
import { LINE_FIELDS, linesText } from '../repositories/request-log-bulk.js';
import { UPDATE_CHECK_ROUTES } from '../stats/usage-counters.js';

/**
 * admin.request_log_bulk: the successful update checks, the bulk of the request log, stored one
 * row per batch and UTC day instead of a row per entry (see repositories/request-log-bulk.ts
 * and docs/performance.md "The request-log ingest"): an entry in bulk costs no heap row and no
 * index entry of its own, so storing a batch costs about 0.6 of a plain COPY of its rows
 * instead of 0.33.
 *
 * Partitioned by UTC day of `first_ts` like admin.request_log, each day partition the twin of
 * the request log's (`request_log_bulk_pYYYYMMDD`, made and dropped with it) and a default one.
 * `lines` (bytea) is stored uncompressed out of line (STORAGE EXTERNAL), so a customer's part
 * is read by its byte offsets without reading the rest. Indexes: `(last_ts, batch)` (newest first, in the order pages are read), `batch` (the usage fold), and
 * GIN on `domains` and `ips` (the batches that hold a customer or an address; `fastupdate`:
 * a batch's keys go to the pending list and are merged into the index in bulk).
 *
 * admin.request_log keeps the other entries, and its status and route indexes now take every
 * row: they left out the successful update checks, which are no longer rows (a filter on
 * status 200 or on the update check's route read the `ts` index then, past every row of the
 * range when few rows matched).
 *
 * The view admin.request_log_entries shows every entry, rows and bulk alike, as rows of the
 * request log's columns: for people and scripts querying the log (it parses every bulk line
 * it reads; the service's own queries read the bulk rows directly).
 */
const field = (name: (typeof LINE_FIELDS)[number]) => `line ->> ${LINE_FIELDS.indexOf(name)}`;
/** The columns of a bulk line, as LINE_FIELDS, typed as admin.request_log's. */
const BULK_ENTRY_COLUMNS = `(${field('ts')})::timestamptz(3), ${field('domain')}, ${field('actor')}, ${field('method')}, ${field('route')}, ${field('path')},
  (${field('status')})::int, ${field('ip')}, ${field('user_agent')}, (${field('bytes_in')})::bigint, (${field('bytes_out')})::bigint,
  (${field('duration_ms')})::int, ${field('request_id')}`;
/** Every line of every bulk row, as `line` (jsonb). */
const BULK_LINES = `FROM admin.request_log_bulk AS bulk
  CROSS JOIN LATERAL string_to_table(rtrim(${linesText('bulk')}, E'\\n'), E'\\n') AS text_line
  CROSS JOIN LATERAL (SELECT text_line::jsonb AS line) AS parsed`;

export class RequestLogBulk1765000000000 implements MigrationInterface {
  name = 'RequestLogBulk1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin.request_log_bulk (
        batch bigint NOT NULL,
        first_ts timestamptz(3) NOT NULL,
        last_ts timestamptz(3) NOT NULL,
        domains text[] NOT NULL,
        starts integer[] NOT NULL,
        counts integer[] NOT NULL,
        ips text[] NOT NULL,
        ip_counts integer[] NOT NULL,
        lines bytea NOT NULL
      ) PARTITION BY RANGE (first_ts)`);
    await queryRunner.query(`ALTER TABLE admin.request_log_bulk ALTER COLUMN lines SET STORAGE EXTERNAL`);
    await queryRunner.query(`CREATE TABLE admin.request_log_bulk_default PARTITION OF admin.request_log_bulk DEFAULT`);
    const days = (await queryRunner.query(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'admin.request_log'::regclass AND c.relname ~ '^request_log_p[0-9]{8}$'`,
    )) as Array<{ name: string; bound: string }>;
    for (const { name, bound } of days) {
      const twin = name.replace('request_log_', 'request_log_bulk_');
      await queryRunner.query(`CREATE TABLE admin.${twin} PARTITION OF admin.request_log_bulk ${bound}`);
    }
    await queryRunner.query(`ALTER TABLE admin.request_log_bulk ALTER COLUMN lines SET STORAGE EXTERNAL`);
    await queryRunner.query(`CREATE INDEX request_log_bulk_last_ts_idx ON admin.request_log_bulk (last_ts, batch)`);
    await queryRunner.query(`CREATE INDEX request_log_bulk_batch_idx ON admin.request_log_bulk (batch)`);
    await queryRunner.query(`CREATE INDEX request_log_bulk_domains_idx ON admin.request_log_bulk USING gin (domains) WITH (fastupdate = on)`);
    await queryRunner.query(`CREATE INDEX request_log_bulk_ips_idx ON admin.request_log_bulk USING gin (ips) WITH (fastupdate = on)`);
    await queryRunner.query(`DROP INDEX admin.request_log_status_ts_idx`);
    await queryRunner.query(`CREATE INDEX request_log_status_ts_idx ON admin.request_log (status, ts)`);
    await queryRunner.query(`DROP INDEX admin.request_log_route_ts_idx`);
    await queryRunner.query(`CREATE INDEX request_log_route_ts_idx ON admin.request_log (route, ts)`);
    await queryRunner.query(`
      CREATE VIEW admin.request_log_entries AS
      SELECT ${LINE_FIELDS.join(', ')}, refusal, batch FROM admin.request_log
      UNION ALL
      SELECT ${BULK_ENTRY_COLUMNS}, NULL::text, bulk.batch ${BULK_LINES}`);
  }

  /** The bulk entries become rows of admin.request_log again (none lost), then the table goes and the indexes are as they were. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP VIEW admin.request_log_entries`);
    await queryRunner.query(`INSERT INTO admin.request_log (${LINE_FIELDS.join(', ')}, batch) SELECT ${BULK_ENTRY_COLUMNS}, bulk.batch ${BULK_LINES}`);
    await queryRunner.query(`DROP TABLE admin.request_log_bulk`);
    await queryRunner.query(`DROP INDEX admin.request_log_status_ts_idx`);
    await queryRunner.query(`CREATE INDEX request_log_status_ts_idx ON admin.request_log (status, ts) WHERE status NOT IN (200, 304)`);
    await queryRunner.query(`DROP INDEX admin.request_log_route_ts_idx`);
    await queryRunner.query(
      `CREATE INDEX request_log_route_ts_idx ON admin.request_log (route, ts) WHERE route NOT IN (${UPDATE_CHECK_ROUTES.map((route) => sqlLiteral(route)).join(', ')})`,
    );
  }
}
