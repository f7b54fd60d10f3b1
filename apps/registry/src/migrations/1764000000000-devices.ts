import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Devices and their tags (docs/api.md, "Devices"), sized for 1,000,000 devices per
 * customer. Plain SQL valid on PostgreSQL 15 and on PGlite (PostgreSQL 18); no extension.
 *
 * device: one row per device, never deleted (withdrawn instead). The primary key
 * (customer_id, hwid) is the point lookup of the update check and, hwid being COLLATE "C", the
 * byte-order walk of the list (HW id prefixes are range conditions on it). `tags` is the device's
 * tag set (sorted in byte order, distinct), read with the record and the lookup. `has_keys` is
 * derived from `keys`. fillfactor 90 leaves room for HOT updates of last_seen_at (update checks).
 *
 * device_tag: one row per (device, tag), the index of the tag filters: its primary key
 * (customer_id, tag, hwid) yields a tag's devices already in HW id order, so `tag=x` pages stop
 * after `limit` rows, several tags merge (any) or join (all) in order, and tag counts and
 * rename/delete are index range scans. It mirrors device.tags; the repository changes both in
 * the same transaction. (No foreign key: devices are never deleted one by one, and deleting a
 * customer's data deletes both tables by customer_id.)
 *
 * Partial indexes (customer_id, hwid) serve the status and has_keys filters when the matching
 * devices are rare: withdrawn devices, devices with keys, devices without keys.
 */
export class RegistryDevices1764000000000 implements MigrationInterface {
  name = 'RegistryDevices1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE registry.device (
        customer_id uuid NOT NULL,
        hwid text COLLATE "C" NOT NULL,
        status text NOT NULL DEFAULT 'active',
        tags text[] COLLATE "C" NOT NULL DEFAULT '{}',
        attributes jsonb NOT NULL DEFAULT '{}',
        keys text[] NOT NULL DEFAULT '{}',
        has_keys boolean GENERATED ALWAYS AS (cardinality(keys) > 0) STORED,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        last_seen_at timestamptz(3),
        last_fw_version text,
        CONSTRAINT device_pkey PRIMARY KEY (customer_id, hwid),
        CONSTRAINT device_hwid_check CHECK (hwid ~ '^[!-~]{1,64}$'),
        CONSTRAINT device_status_check CHECK (status IN ('active', 'withdrawn')),
        CONSTRAINT device_attributes_check CHECK (jsonb_typeof(attributes) = 'object'),
        CONSTRAINT device_tags_check CHECK (cardinality(tags) <= 64),
        CONSTRAINT device_keys_check CHECK (cardinality(keys) <= 8)
      ) WITH (fillfactor = 90)`);
    await queryRunner.query(`CREATE INDEX device_withdrawn_idx ON registry.device (customer_id, hwid) WHERE status = 'withdrawn'`);
    await queryRunner.query(`CREATE INDEX device_with_keys_idx ON registry.device (customer_id, hwid) WHERE has_keys`);
    await queryRunner.query(`CREATE INDEX device_without_keys_idx ON registry.device (customer_id, hwid) WHERE NOT has_keys`);
    await queryRunner.query(`
      CREATE TABLE registry.device_tag (
        customer_id uuid NOT NULL,
        tag text COLLATE "C" NOT NULL,
        hwid text COLLATE "C" NOT NULL,
        CONSTRAINT device_tag_pkey PRIMARY KEY (customer_id, tag, hwid)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE registry.device_tag`);
    await queryRunner.query(`DROP TABLE registry.device`);
  }
}
