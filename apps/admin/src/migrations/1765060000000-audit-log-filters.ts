import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log's filters (GET /admin/audit, GET /audit: docs/api.md "The audit log"), each served
 * by an index in the lists' order (ts, id), so a filtered page reads only its own rows however
 * long the log is: alone (administrators) and after the customer (`domain`, every customer's own
 * list). A target id is rare enough to need no customer index of its own; a filter on a target's
 * type and id reads the target id's index. The existing (ts, id) and (domain, ts, id) serve the
 * unfiltered lists and the time range. The administrators' entries of a customer (GET /audit's
 * `actor=service administrator`, any administrator) have a partial index of their own.
 */
const INDEXES: ReadonlyArray<readonly [name: string, columns: string, where?: string]> = [
  ['audit_log_action_ts_idx', 'action, ts, id'],
  ['audit_log_actor_ts_idx', 'actor, ts, id'],
  ['audit_log_target_type_ts_idx', 'target_type, ts, id'],
  ['audit_log_target_id_ts_idx', 'target_id, ts, id'],
  ['audit_log_domain_action_ts_idx', 'domain, action, ts, id'],
  ['audit_log_domain_actor_ts_idx', 'domain, actor, ts, id'],
  ['audit_log_domain_target_type_ts_idx', 'domain, target_type, ts, id'],
  // GET /audit?actor=service administrator: a customer's administrators' entries (a few in a hundred).
  ['audit_log_domain_administrators_ts_idx', 'domain, ts, id', `actor LIKE 'admin:%'`],
];

export class AuditLogFilters1765060000000 implements MigrationInterface {
  name = 'AuditLogFilters1765060000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, columns, where] of INDEXES) {
      await queryRunner.query(`CREATE INDEX ${name} ON admin.audit_log (${columns})${where ? ` WHERE ${where}` : ''}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of INDEXES) await queryRunner.query(`DROP INDEX admin.${name}`);
  }
}
