import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotent storing of what other apps deliver at least once:
 * - `audit_log.event_id`, `security_event.event_id`: the UUID the producing app gave the entry
 *   in its outbox; a resent entry conflicts and is skipped (NULL for entries the admin app
 *   records itself and for rows from before);
 * - `request_log_batch`: the ids of the gateways' request-log batches already stored (a batch
 *   resent after a lost reply is skipped as a whole); ids older than a day are pruned.
 */
export class AdminDeliveryIds1764400000000 implements MigrationInterface {
  name = 'AdminDeliveryIds1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE admin.audit_log ADD COLUMN event_id uuid`);
    await queryRunner.query(`CREATE UNIQUE INDEX audit_log_event_id_key ON admin.audit_log (event_id)`);
    await queryRunner.query(`ALTER TABLE admin.security_event ADD COLUMN event_id uuid`);
    await queryRunner.query(`CREATE UNIQUE INDEX security_event_event_id_key ON admin.security_event (event_id)`);
    await queryRunner.query(`
      CREATE TABLE admin.request_log_batch (
        id uuid NOT NULL,
        received_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT request_log_batch_pkey PRIMARY KEY (id)
      )`);
    await queryRunner.query(`CREATE INDEX request_log_batch_received_at_idx ON admin.request_log_batch (received_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.request_log_batch`);
    await queryRunner.query(`DROP INDEX admin.security_event_event_id_key`);
    await queryRunner.query(`ALTER TABLE admin.security_event DROP COLUMN event_id`);
    await queryRunner.query(`DROP INDEX admin.audit_log_event_id_key`);
    await queryRunner.query(`ALTER TABLE admin.audit_log DROP COLUMN event_id`);
  }
}
