import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type BackupRunDetail } from '@app/contracts';
import { AdminStore } from '../../repositories/admin.store.js';
import type { GetBackupRunCommand } from './get-backup-run.command.js';

/** GET /admin/backups/{id}: a run record with its progress log. */
@Injectable()
export class GetBackupRun {
  constructor(@Inject(AdminStore) private readonly adminStore: AdminStore) {}

  async execute(command: GetBackupRunCommand): Promise<BackupRunDetail> {
    const run = command.id === null ? null : await this.adminStore.repos.backupRuns.get(command.id);
    if (!run) throw AdminErrors.backup_run_not_found();
    return run;
  }
}
