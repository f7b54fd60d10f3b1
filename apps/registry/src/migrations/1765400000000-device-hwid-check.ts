import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The same HW id rule (1 to 64 printable ASCII characters, docs/api.md "Devices"), written so
 * that it costs the database next to nothing per row. The bounded repetition of
 * `^[!-~]{1,64}$` made PostgreSQL's regular expression engine the largest single cost of
 * loading devices: in the embedded database about 4.5 µs of the 10 µs a device row took in a
 * restore's COPY (bench:backup). A length check and a one-character class that must not match
 * accept exactly the same values: every character in `!`..`~` is one byte, so 1 to 64 bytes is
 * 1 to 64 characters.
 */
export class RegistryDeviceHwidCheck1765400000000 implements MigrationInterface {
  name = 'RegistryDeviceHwidCheck1765400000000';
  /**
   * Not in one transaction: the swap takes the table's exclusive lock only for a moment (NOT
   * VALID: no scan), and the check of every existing row (VALIDATE) then runs beside the update
   * checks' reads and writes instead of holding that lock over a fleet's table. Run again after
   * a failure in between, it swaps and validates again.
   */
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE registry.device
        DROP CONSTRAINT device_hwid_check,
        ADD CONSTRAINT device_hwid_check CHECK (octet_length(hwid) BETWEEN 1 AND 64 AND hwid !~ '[^!-~]') NOT VALID`);
    await queryRunner.query(`ALTER TABLE registry.device VALIDATE CONSTRAINT device_hwid_check`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE registry.device
        DROP CONSTRAINT device_hwid_check,
        ADD CONSTRAINT device_hwid_check CHECK (hwid ~ '^[!-~]{1,64}$')`);
  }
}
