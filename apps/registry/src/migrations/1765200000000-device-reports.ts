import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Device reports (docs/api.md "Device reports"): what a device said about installing a
 * build, signed with one of its keys. The key makes a report id count once per device (a
 * replay or a retry is answered from the stored row, never stored twice); device_report_recent_idx
 * serves a device's reports newest first. Rows are small and rare (one per install attempt).
 * No foreign key to registry.device: devices are never deleted, and customer erasure removes
 * both (EraseCustomer).
 */
export class RegistryDeviceReports1765200000000 implements MigrationInterface {
  name = 'RegistryDeviceReports1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE registry.device_report (
        customer_id uuid NOT NULL,
        hwid text COLLATE "C" NOT NULL,
        report_id text COLLATE "C" NOT NULL,
        build_id uuid NOT NULL,
        fw_version text NOT NULL,
        outcome text NOT NULL,
        reason text,
        reported_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        client_ip text,
        rollout_offers integer NOT NULL DEFAULT 0,
        CONSTRAINT device_report_pkey PRIMARY KEY (customer_id, hwid, report_id),
        CONSTRAINT device_report_outcome_check CHECK (outcome IN ('installed', 'failed', 'rolled_back'))
      )`);
    await queryRunner.query(`CREATE INDEX device_report_recent_idx ON registry.device_report (customer_id, hwid, received_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE registry.device_report`);
  }
}
