import { Inject, Injectable } from '@nestjs/common';
import type { BackupList } from '@app/contracts';
import { BackupStore } from '@app/infra';
import { BackupKeys } from '../../backups/backup-keys.js';
import { AdminStore } from '../../repositories/admin.store.js';
import type { ListBackupsCommand } from './list-backups.command.js';

/** GET /admin/backups: the run records, newest first, with where archives go and which key (docs/api.md "Backups and restores"). */
@Injectable()
export class ListBackups {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(BackupStore) private readonly store: BackupStore,
    @Inject(BackupKeys) private readonly keys: BackupKeys,
  ) {}

  async execute(command: ListBackupsCommand): Promise<BackupList> {
    return { backend: this.store.kind, key: this.keys.view(), items: await this.adminStore.repos.backupRuns.list(command.limit) };
  }
}
