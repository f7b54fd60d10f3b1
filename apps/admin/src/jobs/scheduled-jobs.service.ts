import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { Clock } from '../services/clock.js';
import { HISTORY_MAX_DAYS } from '../services/health.service.js';
import { AdminStore } from '../repositories/admin.store.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The admin app's scheduled work (docs/operations.md "Background jobs"): the queue name; its
 * period is HEALTH_ROLLUP_INTERVAL_SECONDS. Request-log retention schedules itself
 * (stats/request-log-retention.service.ts), as do the security detectors.
 */
export const HEALTH_ROLLUP_JOB = { queue: 'health-rollup' } as const;

/**
 * Runs the admin app's scheduled work as named, visible jobs: one schedule per job across
 * replicas, idempotent runs (a run repeated after a crash finds less or nothing to do).
 */
@Injectable()
export class ScheduledJobs implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  /** The queue outlives the app in one process: runs delivered after shutdown do nothing. */
  private stopped = false;

  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(HEALTH_ROLLUP_JOB.queue, async () => {
      if (!this.stopped) await this.rollUpHealth();
    });
    await this.jobs.schedule(HEALTH_ROLLUP_JOB.queue, HEALTH_ROLLUP_JOB.queue, this.config.healthRollupSeconds * 1000, HEALTH_ROLLUP_JOB.queue, {});
  }

  onModuleDestroy(): void {
    this.stopped = true;
  }

  /**
   * Moves the health samples taken so far into the daily uptime per part (the samples go), then
   * drops the days older than the longest history anyone can ask for (HISTORY_MAX_DAYS, plus
   * one day so that a window reaching back 400 days is always whole). Idempotent: a repeated
   * run finds nothing more to move or drop.
   */
  async rollUpHealth(): Promise<{ moved: number; removedDays: number }> {
    const now = this.clock.now();
    const moved = await this.adminStore.repos.healthDaily.rollUp(now);
    const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const oldestKept = new Date(todayStart - HISTORY_MAX_DAYS * DAY_MS).toISOString().slice(0, 10);
    const removedDays = await this.adminStore.repos.healthDaily.deleteBefore(oldestKept);
    if (moved || removedDays) this.logger.debug('health samples rolled up', { moved, removedDays });
    return { moved, removedDays };
  }
}
