import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ServiceError } from '@app/contracts';
import { BackupStore, JobQueue, JsonLogger, processMetrics, type ServiceConfig, ServiceMetrics } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { Clock } from '../services/clock.js';
import { RunBackup } from '../use-cases/run-backup/run-backup.usecase.js';
import { BACKUPS_NOT_CONFIGURED, BackupKeys } from './backup-keys.js';
import { ABANDONED_AFTER_MS } from '../repositories/backup-run.repository.js';
import { StartBackup } from '../use-cases/start-backup/start-backup.usecase.js';
import { BACKUP_JOB } from './backup-job.js';
import { AdminStore } from '../repositories/admin.store.js';

/**
 * The scheduled backup (BACKUP_SCHEDULE) and the archive retention (BACKUP_KEEP), as named
 * jobs in GET /admin/jobs. The schedule job only checks whether a backup is due, at most
 * hourly, so restarts and replicas never add backups.
 */
export const BACKUP_SCHEDULE_JOB = { queue: 'backup-schedule', checkEveryMs: 3600 * 1000 } as const;
export const BACKUP_RETENTION_JOB = { queue: 'backup-retention', everyMs: 3600 * 1000 } as const;

/**
 * Runs queued backups (the `backup` queue: BullMQ distributed, in process standalone), queues
 * the scheduled ones, and removes archives beyond BACKUP_KEEP (newest kept) after each backup
 * and hourly.
 */
@Injectable()
export class BackupJobs implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  private stopped = false;
  private readonly startedAt = new Date();

  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(StartBackup) private readonly startBackup: StartBackup,
    @Inject(RunBackup) private readonly runBackup: RunBackup,
    @Inject(BackupStore) private readonly store: BackupStore,
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(BackupKeys) private readonly keys: BackupKeys,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    // 0 without a successful backup: an alert on its age fires from the start.
    processMetrics
      .collected(ServiceMetrics.backupLastSuccess)
      .collect([], async () => ((await this.adminStore.repos.backupRuns.lastSucceededBackupAt())?.getTime() ?? 0) / 1000);
    this.jobs.process<{ runId: string }>(BACKUP_JOB.queue, async (job) => {
      if (this.stopped) return;
      await this.runBackup.execute(job.data.runId);
      await this.prune();
    });
    this.jobs.process(BACKUP_SCHEDULE_JOB.queue, async () => {
      if (!this.stopped) await this.scheduled();
    });
    this.jobs.process(BACKUP_RETENTION_JOB.queue, async () => {
      if (!this.stopped) await this.prune();
    });
    const everyMs = this.config.backup.everyMs;
    // Said at start-up, not a period later: a schedule that cannot run must not look like one that does.
    if (!this.keys.configured) this.logger.warn('backups are not configured: no backup runs, scheduled or asked for', { fix: BACKUPS_NOT_CONFIGURED });
    if (everyMs) {
      const checkMs = Math.min(everyMs, BACKUP_SCHEDULE_JOB.checkEveryMs);
      await this.jobs.schedule(BACKUP_SCHEDULE_JOB.queue, BACKUP_SCHEDULE_JOB.queue, checkMs, BACKUP_SCHEDULE_JOB.queue, {});
    }
    await this.jobs.schedule(BACKUP_RETENTION_JOB.queue, BACKUP_RETENTION_JOB.queue, BACKUP_RETENTION_JOB.everyMs, BACKUP_RETENTION_JOB.queue, {});
  }

  onModuleDestroy(): void {
    this.stopped = true;
  }

  /**
   * Queues a backup when one is due: the newest backup run is a period old, or there is none
   * and this process has run a whole period. Skipped (with a warning) while another backup or
   * restore is active; without a key, every check warns (hourly) that no backup is made.
   */
  private async scheduled(): Promise<void> {
    const everyMs = this.config.backup.everyMs;
    if (!everyMs) return;
    if (!this.keys.configured) return this.logger.warn('scheduled backup not made: backups are not configured', { fix: BACKUPS_NOT_CONFIGURED });
    const since = (await this.adminStore.repos.backupRuns.latestBackupAt()) ?? this.startedAt;
    if (this.clock.now().getTime() - since.getTime() < everyMs) return;
    try {
      await this.startBackup.execute('schedule');
    } catch (err) {
      if (ServiceError.is(err)) this.logger.warn('scheduled backup skipped', { reason: err.message });
      else throw err;
    }
  }

  /** Removes the archives beyond BACKUP_KEEP, oldest first, and fails abandoned runs; returns how many archives. */
  async prune(): Promise<number> {
    const now = this.clock.now();
    await this.adminStore.repos.backupRuns.failAbandoned(new Date(now.getTime() - ABANDONED_AFTER_MS), now);
    const archives = await this.store.list();
    const surplus = archives.slice(this.config.backup.keep);
    for (const archive of surplus) await this.store.delete(archive.name);
    if (surplus.length) this.logger.info('old backup archives removed', { removed: surplus.map((a) => a.name), keep: this.config.backup.keep });
    return surplus.length;
  }
}
