import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { RollUpHealth } from '../use-cases/roll-up-health/roll-up-health.usecase.js';

/**
 * The admin app's scheduled work (docs/operations.md "Background jobs"): the queue name; its
 * period is HEALTH_ROLLUP_INTERVAL_SECONDS. Request-log retention schedules itself
 * (stats/request-log-retention.service.ts), as do the security detectors.
 */
export const HEALTH_ROLLUP_JOB = { queue: 'health-rollup' } as const;

/**
 * Runs the admin app's scheduled work as named, visible jobs (each run a use case): one schedule per job across
 * replicas, idempotent runs (a run repeated after a crash finds less or nothing to do).
 */
@Injectable()
export class ScheduledJobs implements OnModuleInit, OnModuleDestroy {
  /** The queue outlives the app in one process: runs delivered after shutdown do nothing. */
  private stopped = false;

  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(RollUpHealth) private readonly rollUpHealth: RollUpHealth,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(HEALTH_ROLLUP_JOB.queue, async () => {
      if (!this.stopped) await this.rollUpHealth.execute();
    });
    await this.jobs.schedule(HEALTH_ROLLUP_JOB.queue, HEALTH_ROLLUP_JOB.queue, this.config.healthRollupSeconds * 1000, HEALTH_ROLLUP_JOB.queue, {});
  }

  onModuleDestroy(): void {
    this.stopped = true;
  }
}
