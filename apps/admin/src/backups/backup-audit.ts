import type { RecordAuditEntry } from '../use-cases/record-audit-entry/record-audit-entry.usecase.js';

/** An audit entry for a backup, verify or restore action of an administrator (or the schedule). */
export function auditBackup(audit: RecordAuditEntry, actor: string, action: string, runId: string, after: Record<string, unknown>): Promise<boolean> {
  return audit.execute({
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
