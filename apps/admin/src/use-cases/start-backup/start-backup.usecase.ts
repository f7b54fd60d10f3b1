import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type BackupRunQueued } from '@app/contracts';
import { archiveName, JobQueue } from '@app/infra';
import { RecordAuditEntry } from '../record-audit-entry/record-audit-entry.usecase.js';
import { auditBackup } from '../../backups/backup-audit.js';
import { BACKUP_JOB } from '../../backups/backup-job.js';
import { BackupKeys } from '../../backups/backup-keys.js';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';

/**
 * POST /admin/backups, and the schedule (`initiatedBy` 'schedule'): a queued run record (one
 * active backup at a time: the run table's partial unique index refuses a second, 409), its
 * audit entry, and the job that makes the archive (RunBackup, in the backup worker).
 */
@Injectable()
export class StartBackup {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(BackupKeys) private readonly keys: BackupKeys,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(initiatedBy: string): Promise<BackupRunQueued> {
    this.keys.assertConfigured();
    const id = randomUUID();
    const createdAt = this.clock.now();
    const name = archiveName(createdAt, id);
    const inserted = await this.adminStore.repos.backupRuns.insert({ id, kind: 'backup', status: 'queued', archiveName: name, initiatedBy, createdAt });
    if (!inserted) throw AdminErrors.backup_run_busy();
    await auditBackup(this.audit, initiatedBy, 'backup.start', id, { archive_name: name });
    await this.jobs.add(BACKUP_JOB.queue, BACKUP_JOB.queue, { runId: id }, { jobId: `backup:${id}`, attempts: 1 });
    return { id, kind: 'backup', status: 'queued' };
  }
}
