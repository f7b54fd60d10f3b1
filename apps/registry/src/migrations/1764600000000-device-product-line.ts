import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a device's last update check reported besides its version (docs/api.md "Rollouts"):
 * the product line (last_hw_name, last_hw_version, last_fw_name) and the version's order key
 * (last_version_key: the firmware app's encoding of the version order as bytes, the one its
 * builds' version_key uses, so `last_version_key < <build's key>` means "older than the build").
 * NULL until the device's first check after this migration.
 *
 * device_line_idx is the index of a build's audience and of the fleet summary: active devices
 * by product line, then HW id (a page of an audience in HW id order is a walk of it), with the
 * version key, the reported version and last_seen_at included, so counting devices by rule,
 * version and age is an index-only scan (devices that never checked in sort last, NULL line).
 * Tags stay out of it: included, they made every entry wider and a rare tag a scan of the
 * whole product line (bench:devices: a 0.1% tag's audience 205 ms with the semi-join on
 * device_tag, 971 ms filtering included tags).
 * It changes with every sighting (last_seen_at), which costs those updates their HOT path;
 * bench:devices measures it.
 */
export class RegistryDeviceProductLine1764600000000 implements MigrationInterface {
  name = 'RegistryDeviceProductLine1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE registry.device
        ADD COLUMN last_hw_name text COLLATE "C",
        ADD COLUMN last_hw_version text COLLATE "C",
        ADD COLUMN last_fw_name text COLLATE "C",
        ADD COLUMN last_version_key bytea`);
    await queryRunner.query(`
      CREATE INDEX device_line_idx ON registry.device (customer_id, last_hw_name, last_hw_version, last_fw_name, hwid)
        INCLUDE (last_version_key, last_fw_version, last_seen_at) WHERE status = 'active'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX registry.device_line_idx`);
    await queryRunner.query(`
      ALTER TABLE registry.device
        DROP COLUMN last_hw_name, DROP COLUMN last_hw_version, DROP COLUMN last_fw_name, DROP COLUMN last_version_key`);
  }
}
