import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * audit_log: the audit entries, one row per change reported by any app (AdminEvents.audit).
 * security_event: the security events (AdminEvents.securityEvent); critical ones are mailed
 * to the operators, `notified_at` says when. Indexes: newest first, per customer, and the
 * critical events still to be mailed.
 */
export class AdminAuditSecurity1763800000000 implements MigrationInterface {
  name = 'AdminAuditSecurity1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA admin IS 'operations: request log, health history, audit log, security events'`);
    await queryRunner.query(`
      CREATE TABLE admin.audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY,
        ts timestamptz(3) NOT NULL,
        domain text,
        actor text NOT NULL,
        action text NOT NULL,
        target_type text NOT NULL,
        target_id text NOT NULL,
        before jsonb,
        after jsonb,
        CONSTRAINT audit_log_pkey PRIMARY KEY (id)
      )`);
    await queryRunner.query(`CREATE INDEX audit_log_ts_idx ON admin.audit_log (ts, id)`);
    await queryRunner.query(`CREATE INDEX audit_log_domain_ts_idx ON admin.audit_log (domain, ts, id)`);
    await queryRunner.query(`
      CREATE TABLE admin.security_event (
        id bigint GENERATED ALWAYS AS IDENTITY,
        ts timestamptz(3) NOT NULL,
        kind text NOT NULL,
        severity text NOT NULL,
        ip text,
        domain text,
        detail jsonb NOT NULL DEFAULT '{}'::jsonb,
        notified_at timestamptz(3),
        acked_at timestamptz(3),
        acked_by text,
        CONSTRAINT security_event_pkey PRIMARY KEY (id),
        CONSTRAINT security_event_severity_check CHECK (severity IN ('info', 'warn', 'critical'))
      )`);
    await queryRunner.query(`CREATE INDEX security_event_ts_idx ON admin.security_event (ts, id)`);
    await queryRunner.query(`CREATE INDEX security_event_unnotified_idx ON admin.security_event (ts) WHERE severity = 'critical' AND notified_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin.security_event`);
    await queryRunner.query(`DROP TABLE admin.audit_log`);
    await queryRunner.query(`COMMENT ON SCHEMA admin IS 'operations: request log, health history (later: stats, audit, security events)'`);
  }
}
