import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type BackupRunQueued } from '@app/contracts';
import { BackupStore, JsonLogger, readArchive } from '@app/infra';
import { RecordAuditEntry } from '../record-audit-entry/record-audit-entry.usecase.js';
import { auditBackup } from '../../backups/backup-audit.js';
import { BackupKeys, keyUsed } from '../../backups/backup-keys.js';
import { errorText, RunLog } from '../../backups/run-log.js';
import { Clock } from '../../services/clock.js';
import type { VerifyBackupCommand } from './verify-backup.command.js';
import { AdminStore } from '../../repositories/admin.store.js';

/**
 * POST /admin/backups/verify: decrypts an archive and checks every entry against its manifest,
 * recorded as a run of kind `verify`. It runs in the admin process that accepted the request,
 * never as a queued job: the secret key (sent with the request, or read from the service's
 * generated key file) lives only in this process's memory for the run and is never stored
 * (not in the database, not in a job queue, not in a log).
 */
@Injectable()
export class VerifyBackup {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(BackupStore) private readonly store: BackupStore,
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(BackupKeys) private readonly keys: BackupKeys,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async start(command: VerifyBackupCommand): Promise<BackupRunQueued> {
    const archives = await this.store.list();
    const archiveName = command.archiveName ?? archives[0]?.name;
    if (!archiveName) throw AdminErrors.backup_archive_missing();
    if (!archives.some((a) => a.name === archiveName)) throw AdminErrors.backup_archive_not_found({ archive: archiveName, backend: this.store.kind });
    const identity = await this.keys.identity(command.identity);
    const id = randomUUID();
    await this.adminStore.repos.backupRuns.insert({
      id,
      kind: 'verify',
      status: 'queued',
      archiveName,
      initiatedBy: command.actor,
      createdAt: this.clock.now(),
    });
    await auditBackup(this.audit, command.actor, 'backup.verify', id, { archive_name: archiveName });
    void this.run(id, archiveName, identity, keyUsed(command.identity));
    return { id, kind: 'verify', status: 'queued' };
  }

  private async run(id: string, archiveName: string, identity: string, keyName: string): Promise<void> {
    const log = new RunLog(this.adminStore.repos.backupRuns, id, this.clock);
    try {
      await this.adminStore.repos.backupRuns.start(id, this.clock.now());
      await log.line(`verifying ${archiveName} on the ${this.store.kind} backend with ${keyName}`);
      const body = await this.store.read(archiveName);
      if (!body) throw new Error(`archive ${archiveName} is gone from the ${this.store.kind} backend`);
      const summary = await readArchive(body, identity);
      for (const d of summary.manifest.dumps) {
        await log.line(`${d.app}: dump of ${d.bytes} bytes matches its SHA-256; ${d.tables.map((t) => `${t.table} ${t.rows}`).join(', ')}`);
      }
      await log.line(`${summary.manifest.files.length} stored files match their sizes and SHA-256; archive made ${summary.manifest.created_at}`);
      await this.adminStore.repos.backupRuns.finish(id, {
        status: 'succeeded',
        objectCount: summary.objectCount,
        totalBytes: summary.totalBytes,
        finishedAt: this.clock.now(),
      });
    } catch (err) {
      const error = errorText(err);
      await log.line(`failed: ${error}`).catch(() => undefined);
      await this.adminStore.repos.backupRuns
        .finish(id, { status: 'failed', error, finishedAt: this.clock.now() })
        .catch((e: unknown) => this.logger.error('verify run not recorded', { id, error: errorText(e) }));
    } finally {
      log.stop();
    }
  }
}
