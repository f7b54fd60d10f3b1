import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { BackupRunView } from '@app/contracts';
import { auditBackup } from '../../backups/backup-audit.js';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import { RecordAuditEntry } from '../record-audit-entry/record-audit-entry.usecase.js';
import type { RecordVerifyReportCommand } from './record-verify-report.command.js';

/** POST /admin/backups/verify-report: a finished `verify` run as an outside verifier saw it, audited. */
@Injectable()
export class RecordVerifyReport {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: RecordVerifyReportCommand): Promise<BackupRunView> {
    const id = randomUUID();
    const now = this.clock.now();
    const { archiveName, ok, detail, actor } = command;
    await this.adminStore.repos.backupRuns.insert(
      { id, kind: 'verify', status: ok ? 'succeeded' : 'failed', archiveName, initiatedBy: `verify-report:${actor}`, createdAt: now },
      { startedAt: now, finishedAt: now, error: ok ? null : detail || 'the outside verifier reported a failure', log: ok && detail ? `${detail}\n` : '' },
    );
    await auditBackup(this.audit, actor, 'backup.verify_report', id, { archive_name: archiveName, ok });
    const run = await this.adminStore.repos.backupRuns.get(id);
    const { log: _log, ...view } = run!;
    return view;
  }
}
