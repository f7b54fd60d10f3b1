import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, AppDataMessages, BACKUP_APPS, type BackupApp, type BackupRunQueued } from '@app/contracts';
import {
  BackupStore,
  DUMP_ENTRY_PREFIX,
  FILE_ENTRY_PREFIX,
  forEachConcurrently,
  JsonLogger,
  type ManifestDump,
  MessageBus,
  ObjectStore,
  readArchive,
  WriteBehind,
} from '@app/infra';
import { RecordAuditEntry } from '../record-audit-entry/record-audit-entry.usecase.js';
import { auditBackup } from '../../backups/backup-audit.js';
import { BackupKeys, keyUsed } from '../../backups/backup-keys.js';
import { BACKUP_WORK_PREFIX, errorText, removeWork, RunLog, stagedFileKey, workKey } from '../../backups/run-log.js';
import type { MaintenanceRow } from '../../repositories/protection.repository.js';
import { Clock } from '../../services/clock.js';
import { SetMaintenanceCommand } from '../set-maintenance/set-maintenance.command.js';
import { SetMaintenance } from '../set-maintenance/set-maintenance.usecase.js';
import type { RestoreBackupCommand } from './restore-backup.command.js';
import { AdminStore } from '../../repositories/admin.store.js';

/**
 * Staging the archive's files: small ones put in the background, several at a time (each put
 * waits for the disk or S3), in place (the run's own working area: no temp file and rename).
 */
const STAGING = { concurrency: 8, maxObjectBytes: 1024 * 1024, maxBufferedBytes: 32 * 1024 * 1024, put: { durable: false, atomic: false } } as const;

/** The 503 message while a restore runs. */
export const RESTORE_MAINTENANCE_MESSAGE = 'a backup is being restored: writes are paused, try again later';

/**
 * POST /admin/restores (docs/operations.md "Restoring"): replaces every app's data and every
 * stored file by the archive's, in maintenance mode.
 *
 * 1. Remember the maintenance setting, turn maintenance on.
 * 2. Read the archive once, checking it against its manifest, and stage its stored files and
 *    dumps in the run's working area of the object store (not yet durable: one flush later
 *    costs far less than one per file). Nothing is replaced unless all of it verifies (a
 *    failure here removes what was staged and puts the earlier maintenance setting back).
 * 3. Move every staged file to its key (a rename on the filesystem), then flush them to disk;
 *    meanwhile each app imports its dump (one transaction per app, its caches reset on every
 *    replica).
 * 4. Remove the stored files the archive does not hold: data replaced, not merged.
 * 5. Put the earlier maintenance setting back.
 *
 * A failure from step 3 on leaves maintenance ON and the run failed with the reason: the
 * service never answers half-restored as if nothing happened. The run records themselves are
 * not part of any archive, so a restore keeps them. Like a verify, it runs in the process that
 * accepted it, holding the secret key in memory only.
 */
@Injectable()
export class RestoreBackup {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(BackupStore) private readonly store: BackupStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(SetMaintenance) private readonly setMaintenance: SetMaintenance,
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(BackupKeys) private readonly keys: BackupKeys,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async start(command: RestoreBackupCommand): Promise<BackupRunQueued> {
    if (!(await this.store.list()).some((a) => a.name === command.archiveName)) {
      throw AdminErrors.backup_archive_not_found({ archive: command.archiveName, backend: this.store.kind });
    }
    const identity = await this.keys.identity(command.identity);
    const id = randomUUID();
    const inserted = await this.adminStore.repos.backupRuns.insert({
      id,
      kind: 'restore',
      status: 'queued',
      archiveName: command.archiveName,
      initiatedBy: command.actor,
      createdAt: this.clock.now(),
    });
    if (!inserted) throw AdminErrors.backup_run_busy();
    await auditBackup(this.audit, command.actor, 'backup.restore', id, { archive_name: command.archiveName });
    void this.run(id, command, identity);
    return { id, kind: 'restore', status: 'queued' };
  }

  private async run(id: string, command: RestoreBackupCommand, identity: string): Promise<void> {
    const log = new RunLog(this.adminStore.repos.backupRuns, id, this.clock);
    const actor = `restore:${command.actor}`;
    let earlier: MaintenanceRow | null = null;
    let replacing = false;
    const staging = new WriteBehind(this.objects, STAGING);
    try {
      await this.adminStore.repos.backupRuns.start(id, this.clock.now());
      earlier = await this.adminStore.repos.protection.maintenance();
      await this.setMaintenance.apply(SetMaintenanceCommand.of({ enabled: true, message: RESTORE_MAINTENANCE_MESSAGE }, actor));
      await log.line(
        `maintenance on (it was ${earlier.enabled ? 'on' : 'off'}); checking ${command.archiveName} on the ${this.store.kind} backend with ${keyUsed(command.identity)}`,
      );
      const staged: string[] = [];
      const summary = await readArchive(await this.archive(command.archiveName), identity, async (entry) => {
        if (entry.name.startsWith(FILE_ENTRY_PREFIX)) {
          const key = entry.name.slice(FILE_ENTRY_PREFIX.length);
          await staging.add(stagedFileKey(id, key), entry.size, entry.body);
          staged.push(key);
        } else if (entry.name.startsWith(DUMP_ENTRY_PREFIX)) {
          const app = entry.name.slice(DUMP_ENTRY_PREFIX.length).replace(/\.dump$/, '');
          if (isBackupApp(app)) await staging.add(workKey(id, app), entry.size, entry.body);
        }
      });
      await staging.finish();
      await log.line(`archive verified: ${summary.objectCount} entries, ${summary.totalBytes} bytes, made ${summary.manifest.created_at}`);
      const apps = importOrder(summary.manifest.dumps.map((d) => d.app));

      replacing = true;
      // The files go into place (renames, then one flush that waits for the disk) while the apps
      // import their dumps (database work): both must be done before the restore is. A rename
      // over an existing file costs the filesystem that file's removal: seconds for thousands,
      // mostly in the kernel, beside the imports rather than before them.
      await allDone([this.putFilesBack(id, staged, log), this.importDumps(id, apps, summary.manifest.dumps, log)]);

      const kept = new Set(staged);
      let removed = 0;
      for await (const key of this.objects.listKeys('')) {
        if (kept.has(key) || key.startsWith(BACKUP_WORK_PREFIX)) continue;
        await this.objects.delete(key);
        removed++;
      }
      await log.line(`${removed} stored files not in the archive removed`);
      await removeWork(this.objects, id);

      await this.setMaintenance.apply(SetMaintenanceCommand.of(earlier, actor));
      await log.line(`maintenance ${earlier.enabled ? 'left on, as it was' : 'off again'}; restore done`);
      await this.adminStore.repos.backupRuns.finish(id, {
        status: 'succeeded',
        objectCount: summary.objectCount,
        totalBytes: summary.totalBytes,
        finishedAt: this.clock.now(),
      });
      // The admin app's own audit log was just replaced by the archive's: record the restore in the new one.
      await auditBackup(this.audit, command.actor, 'backup.restored', id, { archive_name: command.archiveName });
    } catch (err) {
      const error = errorText(err);
      this.logger.warn('restore failed', { id, error });
      await log.line(`failed: ${error}`).catch(() => undefined);
      if (!replacing && earlier) {
        await this.setMaintenance.apply(SetMaintenanceCommand.of(earlier, actor)).catch(() => undefined);
        await log.line('nothing was replaced (what was staged is removed); the earlier maintenance setting is back').catch(() => undefined);
      } else if (replacing) {
        await log.line('maintenance stays on: the data may be partly replaced; restore again or fix and end maintenance').catch(() => undefined);
      }
      await staging.finish().catch(() => undefined); // puts still under way end before their files are removed
      await removeWork(this.objects, id).catch(() => undefined);
      await this.adminStore.repos.backupRuns
        .finish(id, { status: 'failed', error, finishedAt: this.clock.now() })
        .catch((e: unknown) => this.logger.error('restore run not recorded', { id, error: errorText(e) }));
    } finally {
      log.stop();
    }
  }

  private async putFilesBack(id: string, staged: readonly string[], log: RunLog): Promise<void> {
    await forEachConcurrently(staged, STAGING.concurrency, (key) => this.objects.move(stagedFileKey(id, key), key, { durable: false }));
    await this.objects.flush();
    await log.line(`${staged.length} stored files put back`);
  }

  private async importDumps(id: string, apps: readonly BackupApp[], dumps: readonly ManifestDump[], log: RunLog): Promise<void> {
    for (const app of apps) {
      const dump = dumps.find((d) => d.app === app)!;
      const reply = await this.bus.send(AppDataMessages.import(app), { runId: id, objectKey: workKey(id, app), sha256: dump.sha256 });
      await log.line(`${app}: imported ${reply.tables.map((t) => `${t.table} ${t.rows}`).join(', ')}`);
    }
  }

  private async archive(name: string) {
    const body = await this.store.read(name);
    if (!body) throw new Error(`archive ${name} is gone from the ${this.store.kind} backend`);
    return body;
  }
}

/** The apps in their load order (BACKUP_APPS: the admin app last); an app the archive lacks fails the restore. */
function isBackupApp(app: string): app is BackupApp {
  return (BACKUP_APPS as readonly string[]).includes(app);
}

/** Waits for every task, then throws the first failure: nothing is still running when the caller handles it. */
async function allDone(tasks: readonly Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(tasks)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

function importOrder(inArchive: readonly string[]): BackupApp[] {
  for (const app of BACKUP_APPS) if (!inArchive.includes(app)) throw new Error(`the archive holds no dump of ${app}`);
  return [...BACKUP_APPS];
}
