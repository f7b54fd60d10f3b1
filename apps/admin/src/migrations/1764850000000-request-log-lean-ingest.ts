import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The update check's routes: the bulk of the log (a fleet's polls), left out of the route and status indexes below. */
const UPDATE_CHECK_ROUTES = `'/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}', '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}'`;
const COUNTERS = ['requests', 'errors', 'firmware_uploads', 'logdata_uploads', 'firmware_downloads', 'notes_downloads', 'logdata_downloads', 'update_checks'];

/**
 * Storing a request-log batch costs about a plain COPY's work per row (docs/performance.md
 * "Statistics and the request log"): every request writes a row, so each index entry and each
 * counter update per row counts.
 *
 * Indexes of admin.request_log (each on every partition), every event filter served:
 * - (ts), a btree: the time range alone, and the filters whose value most entries share
 *   (`status=200`, the update check's route) read newest first and stop at the page. It
 *   replaces the BRIN, which gives no order (a page of such a filter sorted a week of rows).
 * - (domain, ts) and (ip, ts) with the "C" collation: byte comparison, whatever the database's
 *   locale (a locale's comparison costs several times more per insert; equality is the same).
 * - (status, ts) for statuses other than 200 and 304, and (route, ts) for routes other than the
 *   update check's: partial, so the bulk of the entries (successful update checks) adds
 *   nothing to them; a filter on one of the bulk values is served by (ts). The (status, ts)
 *   index also serves the security detectors' refusal counts, so their partial index of
 *   statuses goes; the new `request_log_refusal_ts_idx` holds only entries with a refusal
 *   (a `customer=` refused as not found), the second half of the `(none)` filter.
 *
 * usage_pending: each batch's counters as one row of arrays (one per (day, customer) cell),
 * written in the batch's transaction by the statement that claims its id, instead of an
 * upsert per cell; the admin app folds them into usage_daily in one statement (UsageRollup),
 * and the summaries read both, so a batch counts once and at once.
 */
export class RequestLogLeanIngest1764850000000 implements MigrationInterface {
  name = 'RequestLogLeanIngest1764850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of [
      'request_log_ts_brin',
      'request_log_refusal_ts_idx',
      'request_log_domain_ts_idx',
      'request_log_ip_ts_idx',
      'request_log_route_status_ts_idx',
      'request_log_status_ts_idx',
    ])
      await queryRunner.query(`DROP INDEX admin.${index}`);
    await queryRunner.query(`CREATE INDEX request_log_ts_idx ON admin.request_log (ts)`);
    await queryRunner.query(`CREATE INDEX request_log_domain_ts_idx ON admin.request_log (domain COLLATE "C", ts)`);
    await queryRunner.query(`CREATE INDEX request_log_ip_ts_idx ON admin.request_log (ip COLLATE "C", ts)`);
    await queryRunner.query(`CREATE INDEX request_log_status_ts_idx ON admin.request_log (status, ts) WHERE status NOT IN (200, 304)`);
    await queryRunner.query(`CREATE INDEX request_log_route_ts_idx ON admin.request_log (route, ts) WHERE route NOT IN (${UPDATE_CHECK_ROUTES})`);
    await queryRunner.query(`CREATE INDEX request_log_refusal_ts_idx ON admin.request_log (ts) WHERE refusal IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE admin.usage_pending (
        id bigint GENERATED ALWAYS AS IDENTITY,
        day date[] NOT NULL,
        domain text[] NOT NULL,
        ${COUNTERS.map((name) => `${name} bigint[] NOT NULL`).join(',\n        ')},
        CONSTRAINT usage_pending_pkey PRIMARY KEY (id)
      )`);
  }

  /** The pending counters folded into usage_daily first (none lost), then the indexes as they were. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      INSERT INTO admin.usage_daily (day, domain, ${COUNTERS.join(', ')})
      SELECT c.day, c.domain, ${COUNTERS.map((name) => `sum(c.${name})`).join(', ')}
        FROM admin.usage_pending p, unnest(p.day, p.domain, ${COUNTERS.map((name) => `p.${name}`).join(', ')}) AS c(day, domain, ${COUNTERS.join(', ')})
       GROUP BY c.day, c.domain
      ON CONFLICT (day, domain) DO UPDATE SET ${COUNTERS.map((name) => `${name} = usage_daily.${name} + EXCLUDED.${name}`).join(', ')}`);
    await queryRunner.query(`DROP TABLE admin.usage_pending`);
    for (const index of [
      'request_log_ts_idx',
      'request_log_domain_ts_idx',
      'request_log_ip_ts_idx',
      'request_log_status_ts_idx',
      'request_log_route_ts_idx',
      'request_log_refusal_ts_idx',
    ])
      await queryRunner.query(`DROP INDEX admin.${index}`);
    await queryRunner.query(`CREATE INDEX request_log_ts_brin ON admin.request_log USING brin (ts)`);
    await queryRunner.query(`CREATE INDEX request_log_domain_ts_idx ON admin.request_log (domain, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_refusal_ts_idx ON admin.request_log (ts) WHERE status IN (401, 404, 429)`);
    await queryRunner.query(`CREATE INDEX request_log_ip_ts_idx ON admin.request_log (ip, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_route_status_ts_idx ON admin.request_log (route, status, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_status_ts_idx ON admin.request_log (status, ts)`);
  }
}
