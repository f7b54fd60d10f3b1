import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What staged rollouts need of the registry (docs/api.md "Rollouts").
 *
 * device.rollout_bucket: the device's stable bucket 0..9999, the first 32 bits of
 * SHA-256(hwid) mod 10000 (rolloutBucket in libs/contracts, which a test checks against this
 * function). A generated column: every way a device row is written (create, import, restore)
 * gets it without code, and existing rows get it when the column is added (one rewrite of the
 * table; a backup leaves it out and the restore computes it). device_bucket_idx: a rollout's
 * audience by position is one or two bucket ranges of it (stage thresholds, the preview).
 * registry.rollout_bucket is IMMUTABLE although textsend is only STABLE: the bytes of an ASCII
 * HW id do not depend on any setting.
 *
 * rollout_offer: the first time each device was offered a build under a rollout (from the
 * update checks' batched sightings, first offer wins), in which stage, the first time it
 * reported a version at least the build's (`updated_at`), and its own report when it sent one
 * (device reports). The key serves a rollout's progress (by rollout_id); rollout_offer_device_idx
 * a device's offers (sightings that change a version, device reports).
 *
 * device_history: a row per version change a device reported (rare: not per check).
 */
export class RegistryRolloutOffers1765110000000 implements MigrationInterface {
  name = 'RegistryRolloutOffers1765110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION registry.rollout_bucket(hwid text) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT ((('x' || encode(substring(sha256(textsend(hwid)) FROM 1 FOR 4), 'hex'))::bit(32)::bigint % 10000))::smallint $$`);
    await queryRunner.query(
      `ALTER TABLE registry.device ADD COLUMN rollout_bucket smallint NOT NULL GENERATED ALWAYS AS (registry.rollout_bucket(hwid)) STORED`,
    );
    await queryRunner.query(
      `CREATE INDEX device_bucket_idx ON registry.device (customer_id, rollout_bucket) INCLUDE (last_hw_name, last_hw_version, last_fw_name) WHERE status = 'active'`,
    );
    await queryRunner.query(`
      CREATE TABLE registry.rollout_offer (
        customer_id uuid NOT NULL,
        rollout_id uuid NOT NULL,
        hwid text COLLATE "C" NOT NULL,
        build_id uuid NOT NULL,
        version_key bytea NOT NULL,
        stage smallint NOT NULL,
        offered_at timestamptz NOT NULL,
        updated_at timestamptz,
        reported_outcome text,
        reported_reason text,
        reported_at timestamptz,
        CONSTRAINT rollout_offer_pkey PRIMARY KEY (rollout_id, hwid),
        CONSTRAINT rollout_offer_reported_check CHECK (reported_outcome IN ('installed', 'failed', 'rolled_back'))
      )`);
    await queryRunner.query(`CREATE INDEX rollout_offer_device_idx ON registry.rollout_offer (customer_id, hwid)`);
    await queryRunner.query(`
      CREATE TABLE registry.device_history (
        customer_id uuid NOT NULL,
        hwid text COLLATE "C" NOT NULL,
        fw_version text NOT NULL,
        hw_name text,
        hw_version text,
        fw_name text,
        seen_at timestamptz NOT NULL,
        CONSTRAINT device_history_pkey PRIMARY KEY (customer_id, hwid, seen_at)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE registry.device_history`);
    await queryRunner.query(`DROP TABLE registry.rollout_offer`);
    await queryRunner.query(`DROP INDEX registry.device_bucket_idx`);
    await queryRunner.query(`ALTER TABLE registry.device DROP COLUMN rollout_bucket`);
    await queryRunner.query(`DROP FUNCTION registry.rollout_bucket(text)`);
  }
}
