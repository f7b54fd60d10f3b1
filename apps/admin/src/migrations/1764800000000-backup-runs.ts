import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backup, verify and restore runs (docs/api.md "Backups and restores"). A restore leaves this
 * table alone (the admin app's export leaves it out), so a restore never erases its own
 * history. At most one backup or restore is queued or running at a time: the partial unique
 * index makes a second one fail to insert (409), whichever replica accepted it. A running run
 * beats (`heartbeat_at`) while its process works on it, so a run whose process died is found
 * and failed instead of blocking the next one forever.
 */
export class BackupRuns1764800000000 implements MigrationInterface {
  name = 'BackupRuns1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin.backup_run (
        id uuid PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('backup', 'verify', 'restore')),
        status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
        archive_name text,
        object_count bigint,
        total_bytes bigint,
        initiated_by text NOT NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        finished_at timestamptz,
        error text,
        log text NOT NULL DEFAULT '',
        heartbeat_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX backup_run_created_at_idx ON admin.backup_run (created_at DESC, id DESC)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX backup_run_one_active_idx ON admin.backup_run ((1)) WHERE kind IN ('backup', 'restore') AND status IN ('queued', 'running')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.backup_run`);
  }
}
