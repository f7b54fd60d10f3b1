import type { AuditService } from '../audit/audit.service.js';

/** An audit entry for a backup, verify or restore action of an administrator (or the schedule). */
export function auditBackup(audit: AuditService, actor: string, action: string, runId: string, after: Record<string, unknown>): Promise<boolean> {
  return audit.store({
    ts: new Date().toISOString(),
    domain: null,
    actor: actor === 'schedule' ? 'schedule' : `admin:${actor}`,
    action,
    target_type: 'backup_run',
    target_id: runId,
    before: null,
    after,
  });
}
