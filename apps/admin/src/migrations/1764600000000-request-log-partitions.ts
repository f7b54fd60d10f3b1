import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = `ts timestamptz(3) NOT NULL,
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
        refusal text`;

/** The indexes of the unpartitioned table, renamed while it becomes the legacy partition. */
const OLD_INDEXES = ['request_log_domain_ts_idx', 'request_log_ts_brin', 'request_log_refusal_ts_idx'];

/**
 * admin.request_log partitioned by UTC day (docs/operations.md "Request log"): retention drops
 * whole partitions (RequestLogRetention), never deletes rows one by one, and an event query
 * reads only the days of its range.
 *
 * The existing table is not copied: it becomes one partition, `request_log_legacy`, holding
 * everything before tomorrow (or after its newest entry), dropped whole once that bound is past
 * retention; an empty one (a new installation) is dropped at once. Its identity becomes a sequence of the partitioned table (partitions cannot carry
 * an identity of their own), and its primary key on id goes (a partitioned table's keys must
 * include ts; nothing looks rows up by id). `request_log_default` takes what falls outside every
 * day partition (a gateway's clock far off), so a batch is never refused for its timestamps;
 * the daily partitions themselves are made ahead by the admin app (RequestLogPartitions).
 *
 * Indexes (on every partition): BRIN on ts (time ranges), (domain, ts), (ip, ts),
 * (route, status, ts) and (status, ts) for the event filters, and the detectors' partial
 * index of refusals.
 */
export class RequestLogPartitions1764600000000 implements MigrationInterface {
  name = 'RequestLogPartitions1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE admin.request_log ALTER COLUMN id DROP IDENTITY`);
    await queryRunner.query(`ALTER TABLE admin.request_log DROP CONSTRAINT request_log_pkey`);
    await queryRunner.query(`ALTER TABLE admin.request_log RENAME TO request_log_legacy`);
    for (const index of OLD_INDEXES) await queryRunner.query(`ALTER INDEX admin.${index} RENAME TO ${index.replace('request_log_', 'request_log_legacy_')}`);

    await queryRunner.query(`CREATE SEQUENCE admin.request_log_id_seq AS bigint`);
    await queryRunner.query(`SELECT setval('admin.request_log_id_seq', coalesce((SELECT max(id) FROM admin.request_log_legacy), 0) + 1, false)`);
    await queryRunner.query(`
      CREATE TABLE admin.request_log (
        id bigint NOT NULL DEFAULT nextval('admin.request_log_id_seq'),
        ${COLUMNS}
      ) PARTITION BY RANGE (ts)`);
    await queryRunner.query(`ALTER SEQUENCE admin.request_log_id_seq OWNED BY admin.request_log.id`);

    await queryRunner.query(`CREATE TABLE admin.request_log_default PARTITION OF admin.request_log DEFAULT`);
    const [{ empty }] = (await queryRunner.query(`SELECT NOT EXISTS (SELECT 1 FROM admin.request_log_legacy) AS empty`)) as Array<{ empty: boolean }>;
    if (empty) {
      // A new installation: nothing to keep, day partitions from the start.
      await queryRunner.query(`DROP TABLE admin.request_log_legacy`);
    } else {
      await this.attachLegacy(queryRunner);
    }

    // Made on the partitioned table: every partition gets them (the legacy one keeps its matching ones).
    await queryRunner.query(`CREATE INDEX request_log_ts_brin ON admin.request_log USING brin (ts)`);
    await queryRunner.query(`CREATE INDEX request_log_domain_ts_idx ON admin.request_log (domain, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_refusal_ts_idx ON admin.request_log (ts) WHERE status IN (401, 404, 429)`);
    await queryRunner.query(`CREATE INDEX request_log_ip_ts_idx ON admin.request_log (ip, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_route_status_ts_idx ON admin.request_log (route, status, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_status_ts_idx ON admin.request_log (status, ts)`);
  }

  /** The old table as the partition of everything before tomorrow (UTC), or past its newest entry. */
  private async attachLegacy(queryRunner: QueryRunner): Promise<void> {
    const [{ bound }] = (await queryRunner.query(
      `SELECT to_char(greatest(date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day',
                               date_trunc('day', (SELECT max(ts) FROM admin.request_log_legacy) AT TIME ZONE 'UTC') + interval '1 day'),
                      'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS bound`,
    )) as Array<{ bound: string }>;
    await queryRunner.query(`ALTER TABLE admin.request_log ATTACH PARTITION admin.request_log_legacy FOR VALUES FROM (MINVALUE) TO ('${bound}')`);
  }

  /** Back to one table: every partition's rows copied into it, in order, ids kept. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin.request_log_unpartitioned (
        id bigint GENERATED ALWAYS AS IDENTITY,
        ${COLUMNS}
      )`);
    await queryRunner.query(`
      INSERT INTO admin.request_log_unpartitioned OVERRIDING SYSTEM VALUE
      SELECT id, ts, domain, actor, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id, refusal
        FROM admin.request_log ORDER BY id`);
    await queryRunner.query(
      `SELECT setval(pg_get_serial_sequence('admin.request_log_unpartitioned', 'id'), coalesce((SELECT max(id) FROM admin.request_log_unpartitioned), 0) + 1, false)`,
    );
    await queryRunner.query(`DROP TABLE admin.request_log`);
    await queryRunner.query(`ALTER TABLE admin.request_log_unpartitioned RENAME TO request_log`);
    await queryRunner.query(`ALTER TABLE admin.request_log ADD CONSTRAINT request_log_pkey PRIMARY KEY (id)`);
    await queryRunner.query(`CREATE INDEX request_log_ts_brin ON admin.request_log USING brin (ts)`);
    await queryRunner.query(`CREATE INDEX request_log_domain_ts_idx ON admin.request_log (domain, ts)`);
    await queryRunner.query(`CREATE INDEX request_log_refusal_ts_idx ON admin.request_log (ts) WHERE status IN (401, 404, 429)`);
  }
}
