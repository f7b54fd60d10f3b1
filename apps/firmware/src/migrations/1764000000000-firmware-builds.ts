import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Firmware builds, their tags, and the outbox of tag changes the registry still has to apply.
 *
 * build: one row per build, never deleted (withdrawn instead). The unique constraint
 * build_identity_key (customer, hw_name, hw_version, fw_name, fw_version, fw_type) is the
 * build's identity (two uploads with these values are the same build): the database, not the object store, decides which
 * of two concurrent uploads of one identity wins. Names use the "C" collation (byte order,
 * exact comparison). `version_key` encodes the version order as bytes (domain/version-order.ts)
 * so SQL can sort by version; the list sorts by (build_date, version_key, id). `revision`
 * counts changes of the build's settings and tags: it is the ETag.
 *
 * build_tag: the tags of each build (customer_id repeated for the per-customer tag queries).
 *
 * tag_sync_op: tag renames and deletes already applied to the builds, in order, until the
 * registry has applied them to the devices too (written in the same transaction as the
 * builds' change, so none is lost). tag_sync_lease: which firmware process replays a
 * customer's pending operations (one at a time, so they reach the registry in order).
 */
export class FirmwareBuilds1764000000000 implements MigrationInterface {
  name = 'FirmwareBuilds1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE firmware.build (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        customer_id uuid NOT NULL,
        hw_name text COLLATE "C" NOT NULL,
        hw_version text COLLATE "C" NOT NULL,
        fw_name text COLLATE "C" NOT NULL,
        fw_version text COLLATE "C" NOT NULL,
        fw_type text NOT NULL,
        version_key bytea NOT NULL,
        build_date timestamptz(3) NOT NULL,
        general_release boolean NOT NULL DEFAULT false,
        tag_filter_disabled boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'active',
        object_key text NOT NULL,
        size_bytes bigint NOT NULL,
        sha256 character(64) NOT NULL,
        what_string text,
        notes_object_key text,
        notes_size_bytes bigint,
        notes_sha256 character(64),
        uploaded_at timestamptz(3) NOT NULL DEFAULT now(),
        uploaded_by text NOT NULL,
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        revision integer NOT NULL DEFAULT 1,
        download_count bigint NOT NULL DEFAULT 0,
        notes_download_count bigint NOT NULL DEFAULT 0,
        CONSTRAINT build_pkey PRIMARY KEY (id),
        CONSTRAINT build_identity_key UNIQUE (customer_id, hw_name, hw_version, fw_name, fw_version, fw_type),
        CONSTRAINT build_fw_type_check CHECK (fw_type IN ('AFI', 'EFI', 'MFI')),
        CONSTRAINT build_status_check CHECK (status IN ('active', 'withdrawn')),
        CONSTRAINT build_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        CONSTRAINT build_size_check CHECK (size_bytes >= 0),
        CONSTRAINT build_notes_check CHECK (
          (notes_object_key IS NULL) = (notes_size_bytes IS NULL) AND (notes_object_key IS NULL) = (notes_sha256 IS NULL)
        )
      )`);
    await queryRunner.query(`CREATE INDEX build_customer_order_idx ON firmware.build (customer_id, build_date, version_key, id)`);
    await queryRunner.query(`CREATE INDEX build_customer_active_idx ON firmware.build (customer_id) WHERE status = 'active'`);
    await queryRunner.query(`
      CREATE TABLE firmware.build_tag (
        build_id uuid NOT NULL,
        customer_id uuid NOT NULL,
        tag text COLLATE "C" NOT NULL,
        CONSTRAINT build_tag_pkey PRIMARY KEY (build_id, tag),
        CONSTRAINT build_tag_build_fkey FOREIGN KEY (build_id) REFERENCES firmware.build (id)
      )`);
    await queryRunner.query(`CREATE INDEX build_tag_customer_tag_idx ON firmware.build_tag (customer_id, tag)`);
    await queryRunner.query(`
      CREATE TABLE firmware.tag_sync_op (
        id bigserial NOT NULL,
        customer_id uuid NOT NULL,
        kind text NOT NULL,
        tag text COLLATE "C" NOT NULL,
        to_tag text COLLATE "C",
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        applied_at timestamptz(3),
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        CONSTRAINT tag_sync_op_pkey PRIMARY KEY (id),
        CONSTRAINT tag_sync_op_kind_check CHECK ((kind = 'rename' AND to_tag IS NOT NULL) OR (kind = 'delete' AND to_tag IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX tag_sync_op_pending_idx ON firmware.tag_sync_op (customer_id, id) WHERE applied_at IS NULL`);
    await queryRunner.query(`
      CREATE TABLE firmware.tag_sync_lease (
        customer_id uuid NOT NULL,
        owner text NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        CONSTRAINT tag_sync_lease_pkey PRIMARY KEY (customer_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE firmware.tag_sync_lease`);
    await queryRunner.query(`DROP TABLE firmware.tag_sync_op`);
    await queryRunner.query(`DROP TABLE firmware.build_tag`);
    await queryRunner.query(`DROP TABLE firmware.build`);
  }
}
