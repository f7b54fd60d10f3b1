import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The security detectors (apps/admin/src/detectors). detector_episode: one row per kind and
 * key (an address, or `all`) while an episode lasts and for a while after; the primary key is
 * the claim that lets only one admin replica raise the episode's event. request_log_refusal_ts_idx:
 * the detectors that count refusals (401, 404, 429) read only those rows of a window; a partial
 * index costs nothing on the rows of answered requests, the bulk of the log. request_log.refusal:
 * which refusal a request was, where a detector must tell it from others of the same status.
 */
export class DetectorEpisodes1764350000000 implements MigrationInterface {
  name = 'DetectorEpisodes1764350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin.detector_episode (
        kind text NOT NULL,
        key text NOT NULL,
        started_at timestamptz(3) NOT NULL,
        last_seen_at timestamptz(3) NOT NULL,
        event_id bigint,
        CONSTRAINT detector_episode_pkey PRIMARY KEY (kind, key)
      )`);
    await queryRunner.query(`CREATE INDEX detector_episode_last_seen_idx ON admin.detector_episode (last_seen_at)`);
    await queryRunner.query(`CREATE INDEX request_log_refusal_ts_idx ON admin.request_log (ts) WHERE status IN (401, 404, 429)`);
    // RequestLogEntry.refusal: which refusal a 404 was (tenant_probing counts `customer_not_found`); null for nearly every row.
    await queryRunner.query(`ALTER TABLE admin.request_log ADD COLUMN refusal text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE admin.request_log DROP COLUMN refusal`);
    await queryRunner.query(`DROP INDEX admin.request_log_refusal_ts_idx`);
    await queryRunner.query(`DROP TABLE admin.detector_episode`);
  }
}
